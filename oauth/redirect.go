package oauth

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// maxRedirectURILen bounds one redirect URI; real ones are far shorter.
const maxRedirectURILen = 2000

// privateUseScheme is the syntax of a URI scheme (RFC 3986 §3.1), lowercased.
var privateUseScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)

// notAppSchemes are schemes that never name a native app, so they are
// refused as private-use redirect schemes: they run script, read files,
// or hand the code to something other than the client.
var notAppSchemes = []string{
	"javascript", "vbscript", "data", "file", "blob", "filesystem", "about", "view-source",
	"ftp", "ws", "wss", "mailto", "tel", "sms", "urn", "jar", "intent",
	"chrome", "chrome-extension", "moz-extension", "edge", "opera", "resource",
}

// osHandlerSchemes are protocol handlers of operating systems and Office.
// They never name an OAuth client, and they are how a link in a browser
// reaches programs that are dangerous to hand a URL chosen by someone else:
// ms-msdt (Follina, CVE-2022-30190), search-ms (shows an attacker's share as
// a local folder), ms-officecmd and ms-word|ms-excel|... "ofe|u|" (open remote
// documents in Office), ms-appinstaller (installs a package), x-man-page
// (runs a command in macOS Terminal), smb and afp (mount a remote share and
// send the user's credentials to it).
//
// They are refused at registration even though errors are never redirected
// (see AuthorizeError): the consent page still sends the browser to the
// redirect URI, and a user who reads a strange app name and presses Deny is
// sent there too, expecting to be safe. Refusing costs nothing, because no
// client can receive a code through these programs. It is a list of known
// handlers rather than a list of allowed schemes: native MCP clients name
// their own schemes (cursor://, vscode://), which no list could foresee.
var osHandlerSchemes = []string{
	// Windows shell, search and help.
	"search", "search-ms", "shell", "hcp", "its", "mk", "mhtml", "res", "microsoft-edge", "microsoft-edge-holographic",
	// macOS and desktop Linux.
	"x-man-page", "help", "ghelp", "applescript",
	// Remote shares and terminals, opened by the file manager or a terminal.
	"smb", "afp", "nfs", "ssh", "telnet", "rlogin",
}

// osHandlerPrefix starts the schemes of Windows' and Office's own handlers
// (ms-msdt, ms-settings, ms-officecmd, ms-word, ms-excel, ms-appinstaller,
// and more in every release): Microsoft's namespace, never a client's.
const osHandlerPrefix = "ms-"

// refusedScheme reports whether scheme can never be a client's private-use
// redirect scheme.
func refusedScheme(scheme string) bool {
	return slices.Contains(notAppSchemes, scheme) || slices.Contains(osHandlerSchemes, scheme) ||
		strings.HasPrefix(scheme, osHandlerPrefix)
}

// isLoopbackHost reports whether host (without port or brackets) is a
// loopback address a native app can listen on (RFC 8252 §7.3).
func isLoopbackHost(host string) bool {
	return host == "127.0.0.1" || host == "::1" || strings.EqualFold(host, "localhost")
}

// checkRedirectURI validates a redirect URI at registration and returns the
// reason it is refused, or "" when it is acceptable:
//
//   - https with a host: a web client's callback;
//   - http only on loopback (127.0.0.1, [::1], localhost): a native app's
//     local listener (RFC 8252 §7.3); any port is accepted at authorization;
//   - a private-use scheme (cursor://..., com.example.app:/cb) of a native
//     app (RFC 8252 §7.1). Another app on the same device could claim the
//     same scheme, but the code it would intercept is useless without the
//     PKCE verifier, which only the client that started the flow has; the
//     consent page shows the scheme so the user sees where the code goes.
//
// Fragments, user info and schemes that never name an app are refused. The
// reason never repeats the URI (it is shown on pages and in JSON errors, and
// a crafted one could make the message say anything); the scheme, which the
// syntax check limits to letters, digits and +.-, is named. The
// same check runs again at authorization, for clients registered before a
// rule was added.
func checkRedirectURI(raw string) string {
	if raw == "" {
		return "redirect URIs must not be empty"
	}
	if len(raw) > maxRedirectURILen {
		return "redirect URIs must be at most 2000 characters"
	}
	if strings.ContainsAny(raw, " \t\r\n\\") {
		return "a redirect URI contains spaces or backslashes"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "a redirect URI is not an absolute URI"
	}
	if strings.Contains(raw, "#") {
		return "a redirect URI has a fragment, which redirect URIs must not have"
	}
	if u.User != nil {
		return "a redirect URI has user information, which redirect URIs must not have"
	}
	switch scheme := u.Scheme; scheme {
	case "https":
		if u.Hostname() == "" {
			return "an https redirect URI has no host"
		}
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return "a redirect URI uses http on a host other than loopback; use https, or http on 127.0.0.1, [::1] or localhost"
		}
	default:
		if scheme != strings.ToLower(scheme) || !privateUseScheme.MatchString(scheme) {
			return "a redirect URI has an invalid scheme"
		}
		if refusedScheme(scheme) {
			return "a redirect URI uses the " + scheme + " scheme, which cannot receive an authorization code"
		}
	}
	return ""
}

// redirectMatches reports whether the redirect URI of an authorization
// request matches a registered one: exactly, except that on a loopback
// http URI the port may differ (RFC 8252 §7.3; native apps pick a free
// port when they start).
func redirectMatches(registered, requested string) bool {
	if registered == requested {
		return true
	}
	r, err1 := url.Parse(registered)
	q, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || r.Scheme != "http" || !isLoopbackHost(r.Hostname()) {
		return false
	}
	return q.Scheme == r.Scheme && q.Hostname() == r.Hostname() && q.User == nil &&
		q.EscapedPath() == r.EscapedPath() && q.RawQuery == r.RawQuery && q.ForceQuery == r.ForceQuery &&
		!strings.Contains(requested, "#") && validPort(q.Port())
}

// validPort accepts an empty port or 1 to 65535 in decimal.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > 5 || p[0] == '0' {
		return false
	}
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n >= 1 && n <= 65535
}

// RedirectTarget describes where a redirect URI sends the user, for the
// consent page: the host of a web or loopback URI, or the scheme of an app.
func RedirectTarget(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	switch u.Scheme {
	case "https", "http":
		if isLoopbackHost(u.Hostname()) {
			return "an app on this device (" + u.Host + ")"
		}
		return u.Host
	}
	if u.Host != "" {
		return "the app that opens " + u.Scheme + "://" + u.Host + " links"
	}
	return "the app that opens " + u.Scheme + ": links"
}

// appendQuery adds params to a redirect URI, keeping its own query as it is.
func appendQuery(redirectURI string, params url.Values) string {
	sep := "?"
	if strings.Contains(redirectURI, "?") {
		sep = "&"
		if strings.HasSuffix(redirectURI, "?") || strings.HasSuffix(redirectURI, "&") {
			sep = ""
		}
	}
	return redirectURI + sep + params.Encode()
}
