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
	// Minor is the ISO 4217 minor-unit exponent: how many decimals an
	// amount in this currency has (JPY 0, USD 2, KWD 3). Where CLDR (and so
	// golang.org/x/text) says fewer because coins are no longer used (IDR,
	// IQD, COP), ISO wins: banks, statements and the ECB keep ISO's decimals.
	Minor int
}

// Currencies are the active ISO 4217 currencies (funds, metals and test
// codes left out), sorted by code. The currency setting takes exactly these
// codes, and exchange rates are only kept between them.
var Currencies = []Currency{
	{"AED", "UAE Dirham", false, 2}, {"AFN", "Afghani", false, 2}, {"ALL", "Lek", true, 2}, {"AMD", "Armenian Dram", true, 2},
	{"AOA", "Kwanza", true, 2}, {"ARS", "Argentine Peso", true, 2}, {"AUD", "Australian Dollar", false, 2},
	{"AWG", "Aruban Florin", false, 2}, {"AZN", "Azerbaijan Manat", true, 2}, {"BAM", "Convertible Mark", true, 2},
	{"BBD", "Barbados Dollar", false, 2}, {"BDT", "Taka", false, 2}, {"BGN", "Bulgarian Lev", true, 2},
	{"BHD", "Bahraini Dinar", false, 3}, {"BIF", "Burundi Franc", true, 0}, {"BMD", "Bermudian Dollar", false, 2},
	{"BND", "Brunei Dollar", true, 2}, {"BOB", "Boliviano", true, 2}, {"BRL", "Brazilian Real", true, 2},
	{"BSD", "Bahamian Dollar", false, 2}, {"BTN", "Ngultrum", false, 2}, {"BWP", "Pula", false, 2},
	{"BYN", "Belarusian Ruble", true, 2}, {"BZD", "Belize Dollar", false, 2}, {"CAD", "Canadian Dollar", false, 2},
	{"CDF", "Congolese Franc", true, 2}, {"CHF", "Swiss Franc", false, 2}, {"CLP", "Chilean Peso", true, 0},
	{"CNY", "Yuan Renminbi", false, 2}, {"COP", "Colombian Peso", true, 2}, {"CRC", "Costa Rican Colon", true, 2},
	{"CUP", "Cuban Peso", false, 2}, {"CVE", "Cabo Verde Escudo", true, 2}, {"CZK", "Czech Koruna", true, 2},
	{"DJF", "Djibouti Franc", true, 0}, {"DKK", "Danish Krone", true, 2}, {"DOP", "Dominican Peso", false, 2},
	{"DZD", "Algerian Dinar", true, 2}, {"EGP", "Egyptian Pound", false, 2}, {"ERN", "Nakfa", false, 2},
	{"ETB", "Ethiopian Birr", false, 2}, {"EUR", "Euro", true, 2}, {"FJD", "Fiji Dollar", false, 2},
	{"FKP", "Falkland Islands Pound", false, 2}, {"GBP", "Pound Sterling", false, 2}, {"GEL", "Lari", true, 2},
	{"GHS", "Ghana Cedi", false, 2}, {"GIP", "Gibraltar Pound", false, 2}, {"GMD", "Dalasi", false, 2},
	{"GNF", "Guinean Franc", true, 0}, {"GTQ", "Quetzal", false, 2}, {"GYD", "Guyana Dollar", false, 2},
	{"HKD", "Hong Kong Dollar", false, 2}, {"HNL", "Lempira", false, 2}, {"HTG", "Gourde", true, 2},
	{"HUF", "Forint", true, 2}, {"IDR", "Rupiah", true, 2}, {"ILS", "New Israeli Sheqel", false, 2},
	{"INR", "Indian Rupee", false, 2}, {"IQD", "Iraqi Dinar", false, 3}, {"IRR", "Iranian Rial", false, 2},
	{"ISK", "Iceland Krona", true, 0}, {"JMD", "Jamaican Dollar", false, 2}, {"JOD", "Jordanian Dinar", false, 3},
	{"JPY", "Yen", false, 0}, {"KES", "Kenyan Shilling", false, 2}, {"KGS", "Som", true, 2}, {"KHR", "Riel", false, 2},
	{"KMF", "Comorian Franc", true, 0}, {"KPW", "North Korean Won", false, 2}, {"KRW", "Won", false, 0},
	{"KWD", "Kuwaiti Dinar", false, 3}, {"KYD", "Cayman Islands Dollar", false, 2}, {"KZT", "Tenge", true, 2},
	{"LAK", "Lao Kip", true, 2}, {"LBP", "Lebanese Pound", false, 2}, {"LKR", "Sri Lanka Rupee", false, 2},
	{"LRD", "Liberian Dollar", false, 2}, {"LSL", "Loti", false, 2}, {"LYD", "Libyan Dinar", false, 3},
	{"MAD", "Moroccan Dirham", true, 2}, {"MDL", "Moldovan Leu", true, 2}, {"MGA", "Malagasy Ariary", false, 2},
	{"MKD", "Denar", true, 2}, {"MMK", "Kyat", false, 2}, {"MNT", "Tugrik", false, 2}, {"MOP", "Pataca", false, 2},
	{"MRU", "Ouguiya", true, 2}, {"MUR", "Mauritius Rupee", false, 2}, {"MVR", "Rufiyaa", false, 2},
	{"MWK", "Malawi Kwacha", false, 2}, {"MXN", "Mexican Peso", false, 2}, {"MYR", "Malaysian Ringgit", false, 2},
	{"MZN", "Mozambique Metical", true, 2}, {"NAD", "Namibia Dollar", false, 2}, {"NGN", "Naira", false, 2},
	{"NIO", "Cordoba Oro", false, 2}, {"NOK", "Norwegian Krone", true, 2}, {"NPR", "Nepalese Rupee", false, 2},
	{"NZD", "New Zealand Dollar", false, 2}, {"OMR", "Rial Omani", false, 3}, {"PAB", "Balboa", false, 2},
	{"PEN", "Sol", false, 2}, {"PGK", "Kina", false, 2}, {"PHP", "Philippine Peso", false, 2},
	{"PKR", "Pakistan Rupee", false, 2}, {"PLN", "Zloty", true, 2}, {"PYG", "Guarani", true, 0},
	{"QAR", "Qatari Rial", false, 2}, {"RON", "Romanian Leu", true, 2}, {"RSD", "Serbian Dinar", true, 2},
	{"RUB", "Russian Ruble", true, 2}, {"RWF", "Rwanda Franc", true, 0}, {"SAR", "Saudi Riyal", false, 2},
	{"SBD", "Solomon Islands Dollar", false, 2}, {"SCR", "Seychelles Rupee", false, 2}, {"SDG", "Sudanese Pound", false, 2},
	{"SEK", "Swedish Krona", true, 2}, {"SGD", "Singapore Dollar", false, 2}, {"SHP", "Saint Helena Pound", false, 2},
	{"SLE", "Leone", false, 2}, {"SOS", "Somali Shilling", false, 2}, {"SRD", "Surinam Dollar", true, 2},
	{"SSP", "South Sudanese Pound", false, 2}, {"STN", "Dobra", true, 2}, {"SVC", "El Salvador Colon", false, 2},
	{"SYP", "Syrian Pound", false, 2}, {"SZL", "Lilangeni", false, 2}, {"THB", "Baht", false, 2},
	{"TJS", "Somoni", true, 2}, {"TMT", "Turkmenistan New Manat", true, 2}, {"TND", "Tunisian Dinar", true, 3},
	{"TOP", "Pa'anga", false, 2}, {"TRY", "Turkish Lira", true, 2}, {"TTD", "Trinidad and Tobago Dollar", false, 2},
	{"TWD", "New Taiwan Dollar", false, 2}, {"TZS", "Tanzanian Shilling", false, 2}, {"UAH", "Hryvnia", true, 2},
	{"UGX", "Uganda Shilling", false, 0}, {"USD", "US Dollar", false, 2}, {"UYU", "Peso Uruguayo", true, 2},
	{"UZS", "Uzbekistan Sum", true, 2}, {"VES", "Bolívar Soberano", true, 2}, {"VND", "Dong", true, 0},
	{"VUV", "Vatu", false, 0}, {"WST", "Tala", false, 2}, {"XAF", "CFA Franc BEAC", true, 0},
	{"XCD", "East Caribbean Dollar", false, 2}, {"XOF", "CFA Franc BCEAO", true, 0}, {"XPF", "CFP Franc", true, 0},
	{"YER", "Yemeni Rial", false, 2}, {"ZAR", "Rand", true, 2}, {"ZMW", "Zambian Kwacha", false, 2},
	{"ZWG", "Zimbabwe Gold", false, 2},
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
