package ai

import "sync"

// The words the built-in parser knows, in English and in the Tagalog that
// Filipino users mix into their notes (Taglish). Every key is lowercase.

// categoryKeywords maps a word or phrase to the seeded expense category it
// suggests (domain.md §2.2). A keyword counts only when the user still has
// that category. Phrases of several words are matched as whole words. It is
// built on the first parse, not when the binary starts (start-up time).
var categoryKeywords = sync.OnceValue(func() map[string]string {
	keywords := make(map[string]string, 1024)
	add := func(category string, words ...string) {
		for _, w := range words {
			keywords[w] = category
		}
	}
	add("Food & Dining",
		"lunch", "dinner", "breakfast", "brunch", "snack", "snacks", "merienda", "meryenda", "food", "foods", "meal",
		"coffee", "kape", "tea", "milktea", "milk tea", "boba", "restaurant", "resto", "cafe", "eat", "eating", "ate",
		"tanghalian", "hapunan", "almusal", "ulam", "kain", "kumain", "pagkain", "baon", "takeout", "take out",
		"delivery", "grabfood", "grab food", "foodpanda", "food panda", "jollibee", "jolibee", "mcdo", "mcdonalds",
		"mcdonald's", "chowking", "kfc", "starbucks", "sbux", "mang inasal", "greenwich", "shakeys", "pizza",
		"burger", "fries", "samgyup", "samgyupsal", "ramen", "sushi", "bbq", "lechon", "tapsilog", "silog",
		"pancit", "siopao", "bakery", "bread", "tinapay", "pandesal", "donut", "donuts", "dunkin", "tim hortons",
		"beer", "drinks", "inuman", "bar", "jco", "krispy kreme", "yellow cab", "max's", "kenny rogers",
		"bonchon", "tokyo tokyo", "army navy", "cafe amazon", "coffee bean", "carinderia", "karinderya",
		"turo-turo", "canteen", "lugaw", "goto", "halo-halo", "ice cream", "dessert", "cake", "tea time")
	add("Groceries",
		"grocery", "groceries", "grocer", "supermarket", "palengke", "market", "wet market", "puregold", "savemore",
		"sm supermarket", "sm hypermarket", "robinsons supermarket", "landers", "s&r", "snr", "waltermart",
		"metro mart", "alfamart", "7-eleven", "7eleven", "7-11", "711", "ministop", "family mart", "familymart",
		"lawson", "sari-sari", "sari sari", "tindahan", "rice", "bigas", "eggs", "itlog", "vegetables", "gulay",
		"fruits", "prutas", "meat", "karne", "isda", "fish", "chicken", "manok", "milk", "gatas", "diapers",
		"toiletries", "shampoo", "soap", "sabon", "detergent", "costco", "walmart", "aldi", "tesco", "whole foods")
	add("Transportation",
		"grab", "grab car", "grabcar", "uber", "lyft", "taxi", "cab", "jeep", "jeepney", "jeepny", "tricycle", "trike",
		"pedicab", "bus", "mrt", "lrt", "train", "tren", "angkas", "joyride", "move it", "moveit", "fare", "pamasahe",
		"pamasahe", "gas", "gasolina", "gasoline", "fuel", "diesel", "petron", "shell", "caltex", "seaoil",
		"parking", "toll", "autosweep", "easytrip", "beep", "beep card", "commute", "ride", "uv express", "fx",
		"p2p", "ferry", "car wash", "carwash", "oil change", "lalamove", "transport", "metro", "subway")
	add("Utilities",
		"electricity", "electric", "kuryente", "meralco", "water", "tubig", "maynilad", "manila water", "internet",
		"wifi", "wi-fi", "pldt", "globe", "smart", "converge", "skycable", "dito", "load", "prepaid",
		"postpaid", "phone bill", "cellphone", "utility", "utilities", "lpg", "gasul", "cable")
	add("Rent & Housing",
		"rent", "upa", "renta", "condo", "apartment", "dorm", "boarding house", "bedspace", "association dues",
		"condo dues", "hoa", "mortgage", "amortization", "housing", "landlord", "repair", "plumber", "electrician")
	add("Shopping",
		"shopee", "lazada", "zalora", "shein", "amazon", "uniqlo", "h&m", "clothes", "damit", "shirt", "tshirt",
		"t-shirt", "pants", "shoes", "sapatos", "tsinelas", "bag", "dress", "mall", "gadget", "gadgets", "phone case",
		"charger", "headphones", "earphones", "laptop", "furniture", "ikea", "appliance", "shopping", "online order",
		"national bookstore", "jacket")
	add("Health & Medical",
		"medicine", "meds", "gamot", "pharmacy", "botika", "mercury drug", "mercury", "watsons", "south star",
		"southstar", "rose pharmacy", "generika", "doctor", "doktor", "checkup", "check-up", "consultation",
		"hospital", "ospital", "clinic", "klinika", "dentist", "dental", "lab test", "laboratory", "xray", "x-ray",
		"vitamins", "bitamina", "vaccine", "bakuna", "optical", "eyeglasses", "salamin", "therapy", "biogesic",
		"paracetamol", "ibuprofen", "antibiotic", "health", "medical")
	add("Education",
		"tuition", "matrikula", "school", "eskwela", "books", "book", "libro", "notebook", "school supplies",
		"supplies", "course", "udemy", "coursera", "seminar", "training", "review center", "exam",
		"printing", "print", "photocopy", "xerox", "education", "class", "lesson")
	add("Entertainment",
		"movie", "movies", "sine", "cinema", "concert", "show", "games", "game", "steam", "playstation", "ps5",
		"xbox", "nintendo", "karaoke", "videoke", "bowling", "arcade", "timezone", "tickets", "ticket", "museum",
		"theme park", "enchanted kingdom", "party", "gimik", "night out", "entertainment", "mobile legends",
		"diamonds", "gcash games")
	add("Personal Care",
		"haircut", "gupit", "barber", "barbershop", "salon", "parlor", "spa", "massage", "masahe", "manicure",
		"pedicure", "mani-pedi", "nails", "skincare", "skin care", "cosmetics", "makeup", "make-up", "perfume",
		"pabango", "toothpaste", "deodorant", "grooming", "facial", "waxing", "hair color")
	add("Travel",
		"hotel", "flight", "airfare", "plane ticket", "airbnb", "agoda", "booking.com", "resort", "cebu pacific",
		"cebupac", "airasia", "philippine airlines", "travel", "trip", "tour", "baggage", "travel tax",
		"terminal fee", "passport", "visa fee", "beach", "boracay", "staycation", "vacation", "bakasyon")
	add("Insurance",
		"insurance", "premium", "pru life", "prulife", "sun life", "sunlife", "axa", "manulife", "fwd", "hmo",
		"maxicare", "intellicare", "medicard", "life insurance", "car insurance", "insular")
	add("Subscriptions",
		"netflix", "spotify", "youtube premium", "youtube", "disney+", "disney plus", "disney", "hbo", "hbo go",
		"prime video", "apple music", "icloud", "google one", "chatgpt", "openai", "subscription",
		"subscriptions", "membership", "gym", "patreon", "canva", "adobe", "viu", "iwantfc", "vivamax", "dropbox")
	add("Gifts & Donations",
		"gift", "gifts", "regalo", "donation", "donate", "charity", "church", "simbahan", "offering", "tithe",
		"tithes", "ikapu", "abuloy", "ambag", "pasalubong", "birthday gift", "wedding gift", "ninong", "ninang",
		"aguinaldo", "pamasko", "red cross", "fundraiser", "ampao", "angpao")
	add("Miscellaneous", "misc", "miscellaneous", "others", "other", "random", "sundry")
	return keywords
})

// Payment words. An e-wallet word means Account Debit from the account of
// that name (GCash is an account a person pays from).
var (
	cashWords    = []string{"cash", "csh", "cahs", "kash", "cash on delivery", "cod"}
	cardWords    = []string{"credit card", "creditcard", "credit", "cc", "visa", "mastercard", "master card", "amex", "jcb", "card"}
	debitWords   = []string{"debit card", "debit", "bank", "bank transfer", "transfer", "online banking", "instapay", "pesonet", "atm", "savings", "checking"}
	ewalletWords = []string{"gcash", "g-cash", "maya", "paymaya", "shopeepay", "grabpay", "coins.ph", "e-wallet", "ewallet"}
	// bankWords are banks that issue accounts and cards in the Philippines
	// (and a few abroad). One names the person's account or card of that
	// bank, and never another: "metrobank card" from someone without a
	// Metrobank card is a card to choose, not their only card.
	bankWords = []string{"bdo", "bpi", "metrobank", "metro bank", "unionbank", "union bank", "ubp", "security bank",
		"secbank", "rcbc", "landbank", "land bank", "lbp", "pnb", "chinabank", "china bank", "eastwest", "east west",
		"psbank", "aub", "maybank", "robinsons bank", "ctbc", "pbcom", "bank of commerce", "dbp", "hsbc", "citi",
		"citibank", "standard chartered", "gotyme", "tonik", "seabank", "cimb", "komo"}
	// accountWords after a bank say it paid from an account ("bpi savings").
	accountWords = append([]string{"account"}, debitWords...)
)

// connectorWords join two expenses in one message ("lunch 250 and coffee 120"),
// or join words inside one ("coffee and cake 300"); the parser tells which by
// whether both sides have an amount. "at" is Tagalog for "and".
var connectorWords = map[string]bool{"and": true, "&": true, "+": true, "plus": true, "then": true,
	"tapos": true, "saka": true, "at": true, "also": true, "pati": true}

// fillerWords carry no meaning for the draft at the edges of a description
// ("paid 250 for lunch" is "Lunch"), or just before a payment or date phrase.
var fillerWords = map[string]bool{
	"for": true, "paid": true, "pay": true, "payed": true, "spent": true, "spend": true, "bought": true, "buy": true,
	"purchase": true, "purchased": true, "on": true, "via": true, "using": true, "used": true, "thru": true,
	"through": true, "with": true, "by": true, "from": true, "in": true, "at": true, "the": true, "a": true,
	"an": true, "my": true, "i": true, "ko": true, "ako": true, "sa": true, "ng": true, "nag": true, "para": true,
	"gamit": true, "bayad": true, "binayad": true, "binayaran": true, "nagbayad": true, "gastos": true,
	"gumastos": true, "ang": true, "yung": true, "'yung": true, "ung": true, "mga": true, "lang": true,
	"po": true, "na": true, "naman": true, "din": true, "rin": true, "pang": true, "pambili": true,
	"expense": true, "expenses": true, "amount": true, "total": true, "of": true, "to": true, "and": true,
	"&": true, "+": true, "plus": true, "then": true, "tapos": true, "saka": true, "also": true, "pati": true,
	"was": true, "is": true, "it": true, "just": true, "worth": true, "halaga": true, "nung": true, "noong": true,
	"last": true, "this": true, "-": true, "–": true, ":": true, "=": true, "@": true,
}

// quantityUnits follow a number that counts things rather than money
// ("2 pcs", "5 kg"): the number stays in the description.
var quantityUnits = map[string]bool{"pc": true, "pcs": true, "piece": true, "pieces": true, "kg": true, "kgs": true,
	"kilo": true, "kilos": true, "g": true, "grams": true, "l": true, "liter": true, "liters": true, "litro": true,
	"ml": true, "box": true, "boxes": true, "pack": true, "packs": true, "bottle": true, "bottles": true,
	"cups": true, "cup": true, "orders": true, "order": true, "people": true, "pax": true, "persons": true,
	"days": true, "day": true, "hours": true, "hrs": true, "months": true, "month": true, "x": true, "sets": true,
	"rolls": true, "dozen": true, "tabs": true, "tablets": true, "sachets": true, "kwh": true, "gb": true}

// stopWords are too common to tell one merchant from another when the
// parser learns from a user's past descriptions.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "from": true, "at": true,
	"sa": true, "ng": true, "ang": true, "mga": true, "para": true, "payment": true, "bill": true, "paid": true,
	"store": true, "shop": true, "inc": true, "corp": true, "co": true, "ltd": true}

// currencies maps the ways people mark a currency to its ISO code.
var currencyMarks = map[string]string{
	"₱": "PHP", "php": "PHP", "p": "PHP", "peso": "PHP", "pesos": "PHP", "piso": "PHP", "pesos.": "PHP",
	"$": "USD", "usd": "USD", "us$": "USD", "dollar": "USD", "dollars": "USD", "bucks": "USD",
	"€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR",
	"£": "GBP", "gbp": "GBP", "pounds": "GBP",
	"¥": "JPY", "jpy": "JPY", "yen": "JPY",
	"₹": "INR", "inr": "INR", "rs": "INR", "rs.": "INR", "rupees": "INR",
	"₩": "KRW", "krw": "KRW", "won": "KRW",
	"s$": "SGD", "sgd": "SGD", "a$": "AUD", "aud": "AUD", "c$": "CAD", "cad": "CAD", "hk$": "HKD", "hkd": "HKD",
	"rm": "MYR", "myr": "MYR", "฿": "THB", "thb": "THB", "baht": "THB", "idr": "IDR", "rp": "IDR", "vnd": "VND",
	"₫": "VND", "aed": "AED", "sar": "SAR", "cny": "CNY", "rmb": "CNY",
}

// months by their names and abbreviations, English and Tagalog.
var monthNames = map[string]int{
	"jan": 1, "january": 1, "enero": 1, "feb": 2, "february": 2, "pebrero": 2, "mar": 3, "march": 3, "marso": 3,
	"apr": 4, "april": 4, "abril": 4, "may": 5, "mayo": 5, "jun": 6, "june": 6, "hunyo": 6, "jul": 7, "july": 7,
	"hulyo": 7, "aug": 8, "august": 8, "agosto": 8, "sep": 9, "sept": 9, "september": 9, "setyembre": 9,
	"oct": 10, "october": 10, "oktubre": 10, "nov": 11, "november": 11, "nobyembre": 11, "dec": 12,
	"december": 12, "disyembre": 12,
}

// weekdayNames by English and Tagalog names and abbreviations (time.Weekday values).
var weekdayNames = map[string]int{
	"sunday": 0, "linggo": 0, "monday": 1, "mon": 1, "lunes": 1, "tuesday": 2, "tue": 2, "tues": 2,
	"martes": 2, "wednesday": 3, "wed": 3, "miyerkules": 3, "miyerkoles": 3, "thursday": 4, "thu": 4, "thurs": 4,
	"huwebes": 4, "friday": 5, "fri": 5, "biyernes": 5, "byernes": 5, "saturday": 6, "sat": 6, "sabado": 6,
}

// relativeDays are the words for a day counted back from today.
var relativeDays = map[string]int{
	"today": 0, "tonight": 0, "ngayon": 0, "kanina": 0, "kaninang": 0, "tdy": 0, "earlier": 0, "this morning": 0,
	"this afternoon": 0, "this evening": 0, "ngayong araw": 0, "kaninang umaga": 0, "kaninang tanghali": 0,
	"yesterday": 1, "yday": 1, "yest": 1, "ystd": 1, "kahapon": 1, "last night": 1, "kagabi": 1,
	"day before yesterday": 2, "the day before yesterday": 2, "kamakalawa": 2,
}

// approximateDate is the day a rough date phrase stands for.
type approximateDate int

const (
	notApproximate   approximateDate = iota
	aboutDaysAgo2                    // the other day
	aboutDaysAgo3                    // a few days ago
	aboutWeekAgo                     // last week
	aboutLastWeekend                 // the Saturday before today
	aboutMonthAgo                    // last month
)

// approximateDates are the phrases that place an expense only roughly. A
// draft dated by one of them lists its date as guessed.
var approximateDates = map[string]approximateDate{
	"the other day": aboutDaysAgo2, "noong isang araw": aboutDaysAgo2, "nung isang araw": aboutDaysAgo2,
	"a few days ago": aboutDaysAgo3, "few days ago": aboutDaysAgo3, "some days ago": aboutDaysAgo3,
	"last week": aboutWeekAgo, "past week": aboutWeekAgo, "the other week": aboutWeekAgo, "the past week": aboutWeekAgo,
	"nakaraang linggo": aboutWeekAgo, "noong isang linggo": aboutWeekAgo, "nung isang linggo": aboutWeekAgo,
	"last weekend": aboutLastWeekend, "over the weekend": aboutLastWeekend,
	"last month": aboutMonthAgo, "the other month": aboutMonthAgo, "nakaraang buwan": aboutMonthAgo,
	"noong isang buwan": aboutMonthAgo, "nung isang buwan": aboutMonthAgo,
}

// fuzzyVocabulary are the long words the parser recognizes with a typo
// (one letter wrong, missing, extra or swapped; two for words of 8 or more).
// Short words are left out: "cash" one letter off is "case".
var fuzzyVocabulary = []string{"yesterday", "today", "tonight", "kahapon", "kagabi", "kamakalawa",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
	"groceries", "grocery", "breakfast", "dinner", "lunch", "coffee", "medicine", "electricity", "internet",
	"tuition", "haircut", "netflix", "spotify", "jollibee", "starbucks", "mcdonalds", "pharmacy", "gasoline",
	"tricycle", "jeepney", "parking", "insurance", "donation", "transportation", "restaurant", "supermarket",
	"puregold", "meralco", "shopee", "lazada", "subscription", "merienda", "pamasahe", "gcash", "paymaya",
	"credit", "debit", "taxi"}
