package finance

import (
	"slices"
	"strings"
)

// Currency is an ISO 4217 code a user can keep their ledger in, with its
// English name and the decimal mark its people usually write (domain.md,
// "First run, currency and timezone"). The mark decides how a page reads an
// amount whose only mark could be either ("1,234", "1.234").
type Currency struct {
	Code, Name   string
	DecimalComma bool // "1.234,56" rather than "1,234.56"
}

// Currencies are the active ISO 4217 currencies (funds, metals and test
// codes left out), sorted by code. The currency setting takes exactly these
// codes; nothing is converted, so the list only has to name them.
var Currencies = []Currency{
	{"AED", "UAE Dirham", false}, {"AFN", "Afghani", false}, {"ALL", "Lek", true}, {"AMD", "Armenian Dram", true},
	{"AOA", "Kwanza", true}, {"ARS", "Argentine Peso", true}, {"AUD", "Australian Dollar", false},
	{"AWG", "Aruban Florin", false}, {"AZN", "Azerbaijan Manat", true}, {"BAM", "Convertible Mark", true},
	{"BBD", "Barbados Dollar", false}, {"BDT", "Taka", false}, {"BGN", "Bulgarian Lev", true},
	{"BHD", "Bahraini Dinar", false}, {"BIF", "Burundi Franc", true}, {"BMD", "Bermudian Dollar", false},
	{"BND", "Brunei Dollar", true}, {"BOB", "Boliviano", true}, {"BRL", "Brazilian Real", true},
	{"BSD", "Bahamian Dollar", false}, {"BTN", "Ngultrum", false}, {"BWP", "Pula", false},
	{"BYN", "Belarusian Ruble", true}, {"BZD", "Belize Dollar", false}, {"CAD", "Canadian Dollar", false},
	{"CDF", "Congolese Franc", true}, {"CHF", "Swiss Franc", false}, {"CLP", "Chilean Peso", true},
	{"CNY", "Yuan Renminbi", false}, {"COP", "Colombian Peso", true}, {"CRC", "Costa Rican Colon", true},
	{"CUP", "Cuban Peso", false}, {"CVE", "Cabo Verde Escudo", true}, {"CZK", "Czech Koruna", true},
	{"DJF", "Djibouti Franc", true}, {"DKK", "Danish Krone", true}, {"DOP", "Dominican Peso", false},
	{"DZD", "Algerian Dinar", true}, {"EGP", "Egyptian Pound", false}, {"ERN", "Nakfa", false},
	{"ETB", "Ethiopian Birr", false}, {"EUR", "Euro", true}, {"FJD", "Fiji Dollar", false},
	{"FKP", "Falkland Islands Pound", false}, {"GBP", "Pound Sterling", false}, {"GEL", "Lari", true},
	{"GHS", "Ghana Cedi", false}, {"GIP", "Gibraltar Pound", false}, {"GMD", "Dalasi", false},
	{"GNF", "Guinean Franc", true}, {"GTQ", "Quetzal", false}, {"GYD", "Guyana Dollar", false},
	{"HKD", "Hong Kong Dollar", false}, {"HNL", "Lempira", false}, {"HTG", "Gourde", true},
	{"HUF", "Forint", true}, {"IDR", "Rupiah", true}, {"ILS", "New Israeli Sheqel", false},
	{"INR", "Indian Rupee", false}, {"IQD", "Iraqi Dinar", false}, {"IRR", "Iranian Rial", false},
	{"ISK", "Iceland Krona", true}, {"JMD", "Jamaican Dollar", false}, {"JOD", "Jordanian Dinar", false},
	{"JPY", "Yen", false}, {"KES", "Kenyan Shilling", false}, {"KGS", "Som", true}, {"KHR", "Riel", false},
	{"KMF", "Comorian Franc", true}, {"KPW", "North Korean Won", false}, {"KRW", "Won", false},
	{"KWD", "Kuwaiti Dinar", false}, {"KYD", "Cayman Islands Dollar", false}, {"KZT", "Tenge", true},
	{"LAK", "Lao Kip", true}, {"LBP", "Lebanese Pound", false}, {"LKR", "Sri Lanka Rupee", false},
	{"LRD", "Liberian Dollar", false}, {"LSL", "Loti", false}, {"LYD", "Libyan Dinar", false},
	{"MAD", "Moroccan Dirham", true}, {"MDL", "Moldovan Leu", true}, {"MGA", "Malagasy Ariary", false},
	{"MKD", "Denar", true}, {"MMK", "Kyat", false}, {"MNT", "Tugrik", false}, {"MOP", "Pataca", false},
	{"MRU", "Ouguiya", true}, {"MUR", "Mauritius Rupee", false}, {"MVR", "Rufiyaa", false},
	{"MWK", "Malawi Kwacha", false}, {"MXN", "Mexican Peso", false}, {"MYR", "Malaysian Ringgit", false},
	{"MZN", "Mozambique Metical", true}, {"NAD", "Namibia Dollar", false}, {"NGN", "Naira", false},
	{"NIO", "Cordoba Oro", false}, {"NOK", "Norwegian Krone", true}, {"NPR", "Nepalese Rupee", false},
	{"NZD", "New Zealand Dollar", false}, {"OMR", "Rial Omani", false}, {"PAB", "Balboa", false},
	{"PEN", "Sol", false}, {"PGK", "Kina", false}, {"PHP", "Philippine Peso", false},
	{"PKR", "Pakistan Rupee", false}, {"PLN", "Zloty", true}, {"PYG", "Guarani", true},
	{"QAR", "Qatari Rial", false}, {"RON", "Romanian Leu", true}, {"RSD", "Serbian Dinar", true},
	{"RUB", "Russian Ruble", true}, {"RWF", "Rwanda Franc", true}, {"SAR", "Saudi Riyal", false},
	{"SBD", "Solomon Islands Dollar", false}, {"SCR", "Seychelles Rupee", false}, {"SDG", "Sudanese Pound", false},
	{"SEK", "Swedish Krona", true}, {"SGD", "Singapore Dollar", false}, {"SHP", "Saint Helena Pound", false},
	{"SLE", "Leone", false}, {"SOS", "Somali Shilling", false}, {"SRD", "Surinam Dollar", true},
	{"SSP", "South Sudanese Pound", false}, {"STN", "Dobra", true}, {"SVC", "El Salvador Colon", false},
	{"SYP", "Syrian Pound", false}, {"SZL", "Lilangeni", false}, {"THB", "Baht", false},
	{"TJS", "Somoni", true}, {"TMT", "Turkmenistan New Manat", true}, {"TND", "Tunisian Dinar", true},
	{"TOP", "Pa'anga", false}, {"TRY", "Turkish Lira", true}, {"TTD", "Trinidad and Tobago Dollar", false},
	{"TWD", "New Taiwan Dollar", false}, {"TZS", "Tanzanian Shilling", false}, {"UAH", "Hryvnia", true},
	{"UGX", "Uganda Shilling", false}, {"USD", "US Dollar", false}, {"UYU", "Peso Uruguayo", true},
	{"UZS", "Uzbekistan Sum", true}, {"VES", "Bolívar Soberano", true}, {"VND", "Dong", true},
	{"VUV", "Vatu", false}, {"WST", "Tala", false}, {"XAF", "CFA Franc BEAC", true},
	{"XCD", "East Caribbean Dollar", false}, {"XOF", "CFA Franc BCEAO", true}, {"XPF", "CFP Franc", true},
	{"YER", "Yemeni Rial", false}, {"ZAR", "Rand", true}, {"ZMW", "Zambian Kwacha", false},
	{"ZWG", "Zimbabwe Gold", false},
}

// LookupCurrency finds a currency by its code in any case ("usd", "Usd",
// "USD"); ok is false for a code that is not in Currencies.
func LookupCurrency(code string) (Currency, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	i, ok := slices.BinarySearchFunc(Currencies, code, func(c Currency, code string) int { return strings.Compare(c.Code, code) })
	if !ok {
		return Currency{Code: code}, false
	}
	return Currencies[i], true
}
