package telegram

import "strings"

// MarkdownV2 (core.telegram.org/bots/api#markdownv2-style): outside
// entities, each of _ * [ ] ( ) ~ ` > # + - = | { } . ! and the backslash
// must be escaped with a backslash, or Telegram refuses the whole message.
// Every piece of text that did not come from a constant of this package
// (descriptions, category names, amounts, error messages) goes through
// Escape; the formatting characters are added around escaped text only.

var mdReplacer = func() *strings.Replacer {
	var pairs []string
	for _, c := range "\\_*[]()~`>#+-=|{}.!" {
		pairs = append(pairs, string(c), "\\"+string(c))
	}
	return strings.NewReplacer(pairs...)
}()

// Escape makes s literal text in a MarkdownV2 message.
func Escape(s string) string { return mdReplacer.Replace(s) }

// Bold is s, escaped, in bold.
func Bold(s string) string { return "*" + Escape(s) + "*" }

// Italic is s, escaped, in italics.
func Italic(s string) string { return "_" + Escape(s) + "_" }

// Code is s as inline code: inside code entities only ` and \ are escaped.
func Code(s string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`").Replace(s) + "`"
}
