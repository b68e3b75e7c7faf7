// Package arch_test enforces the import rules of the architecture: which
// packages may depend on which libraries and on each other.
package arch_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/finance-app/finance"

type pkgInfo struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages returns every package of the module with its direct imports
// and all transitive dependencies (go list -deps semantics).
func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkgInfo
	for {
		var p pkgInfo
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rule: a package (by import path relative to the module) must not import,
// directly or transitively, any path with one of the forbidden prefixes.
type rule struct {
	pkg       string
	forbidden []string
	why       string
}

var (
	dbLibs   = []string{"github.com/uptrace/bun", "modernc.org/sqlite", "github.com/jackc/pgx"}
	httpLibs = []string{"github.com/uptrace/bunrouter", "net/http"}
	mcpLib   = []string{"github.com/mark3labs/mcp-go"}
	cliLibs  = []string{"github.com/spf13/cobra", "github.com/adrg/xdg"}
)

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var rules = []rule{
	{"finance", concat([]string{module + "/"}, dbLibs, httpLibs, mcpLib, cliLibs),
		"the domain imports nothing from this module and no HTTP, DB, MCP or CLI library"},
	{"server", concat([]string{module + "/store", module + "/mcpserver"}, dbLibs, mcpLib, cliLibs),
		"server never imports store; only store imports bun and drivers; only mcpserver imports mcp-go"},
	{"web", concat([]string{module + "/store", module + "/server", module + "/mcpserver", module + "/cmd"}, dbLibs, mcpLib, cliLibs),
		"the web app calls the finance services, never the store; the server mounts it, never the reverse"},
	{"httperr", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", module + "/cmd",
		"github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"the error table is shared by the REST handlers and the pages and depends on neither"},
	{"queryparam", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", module + "/cmd"},
		dbLibs, httpLibs, mcpLib, cliLibs),
		"the query readers are shared by the REST handlers and the pages and depend on neither, nor on HTTP"},
	{"auth", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", "github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"auth verifies credentials below the HTTP layer; persistence is a port implemented by store"},
	{"oauth", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", "github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"the authorization server decides; server routes to it and store persists it through its port"},
	{"mcpserver", concat([]string{module + "/store", "github.com/uptrace/bunrouter"}, dbLibs, cliLibs),
		"mcpserver wraps the REST handlers and never reaches the store"},
	{"store", concat([]string{module + "/server", module + "/web", module + "/mcpserver", "github.com/uptrace/bunrouter"}, mcpLib, cliLibs),
		"store implements the ports of finance, auth and oauth and sits below every HTTP package; it knows nothing of HTTP routing, MCP or the CLI"},
	{"embed", []string{module + "/"}, "embed only holds files"},
	{"ai", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", module + "/cmd", module + "/embed",
		"github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"ai parses into finance's types; it knows nothing of routing, storage, MCP or the CLI"},
	{"telegram", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", module + "/cmd", module + "/embed",
		module + "/ai", "github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"the bot reaches the ledger only through REST routes served in process (its API port); it knows nothing of routing, storage, MCP or the CLI"},
	{"fxrates", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", module + "/cmd",
		module + "/embed", "github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"the rates fetcher reads a source into finance's rates and stores them through its port; it knows nothing of routing, storage, MCP or the CLI"},
	{"metrics", concat([]string{module + "/", "github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"the metrics know nothing of what they count: each package reports through a port of its own, connected by the composition root"},
	{"assistant", concat([]string{module + "/store", module + "/server", module + "/web", module + "/mcpserver", module + "/telegram",
		module + "/cmd", module + "/embed", "github.com/uptrace/bunrouter"}, dbLibs, mcpLib, cliLibs),
		"the assistant's propose/confirm rules sit below the HTTP layer: it reaches the routes, its store and the tool table only through its ports"},
}

// TestImportfileImportsOnlyTextAndFinance: the statement readers are a pure
// package (the standard library, golang.org/x/text for charsets, finance
// for money and dates), so every format can be tested and fuzzed alone.
func TestImportfileImportsOnlyTextAndFinance(t *testing.T) {
	found := false
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/importfile" {
			continue
		}
		found = true
		// Its own imports: finance's are held by finance's rule.
		for _, imp := range p.Imports {
			first, _, _ := strings.Cut(imp, "/")
			switch {
			case !strings.Contains(first, "."): // the standard library
			case imp == module+"/finance", strings.HasPrefix(imp, "golang.org/x/text/"):
			default:
				t.Errorf("importfile imports %s; it may use only the standard library, golang.org/x/text and finance", imp)
			}
		}
	}
	if !found {
		t.Error("package importfile not found")
	}
}

func TestImportRules(t *testing.T) {
	byPath := map[string]pkgInfo{}
	for _, p := range listPackages(t) {
		byPath[p.ImportPath] = p
	}
	for _, r := range rules {
		p, ok := byPath[module+"/"+r.pkg]
		if !ok {
			t.Errorf("package %s not found", r.pkg)
			continue
		}
		for _, dep := range p.Deps {
			for _, f := range r.forbidden {
				if dep == strings.TrimSuffix(f, "/") || strings.HasPrefix(dep, strings.TrimSuffix(f, "/")+"/") {
					t.Errorf("%s depends on %s: %s", r.pkg, dep, r.why)
				}
			}
		}
	}
}

// TestOnlyServerAndCLIImportAI: the engines are wired by the composition
// root and called by the HTTP layer and the assistant; the domain and the
// rest never reach them. The web app names their drafts and limits
// (ai.Result, ai.MaxImages) but runs them only through the server
// (web.Host), which holds the AI budget and the job slots.
func TestOnlyServerAndCLIImportAI(t *testing.T) {
	allowed := map[string]bool{"server": true, "web": true, "cmd/finance": true, "ai": true, "assistant": true}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if allowed[rel] || strings.HasPrefix(rel, "ai/") {
			continue
		}
		for _, imp := range p.Imports {
			if imp == module+"/ai" {
				t.Errorf("%s imports %s; only server, web, assistant and cmd/finance may", p.ImportPath, imp)
			}
		}
	}
}

// TestOnlyCLIImportsMetrics: the registry is made and handed out by the
// composition root; server, store, mcpserver and ai report to ports of their
// own (RequestObserver, CommitObserver, ToolCallObserver, CallObserver), so
// none of them depends on the Prometheus client, which metrics alone uses
// (and the test kit, to parse what it serves).
func TestOnlyCLIImportsMetrics(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			if imp == module+"/metrics" && rel != "cmd/finance" {
				t.Errorf("%s imports %s; only cmd/finance may", p.ImportPath, imp)
			}
			if strings.HasPrefix(imp, "github.com/prometheus/") && rel != "metrics" && rel != "internal/testkit" {
				t.Errorf("%s imports %s; only metrics may", p.ImportPath, imp)
			}
		}
	}
}

// TestOnlyServerImportsAssistant: the assistant is called by the two
// handlers of its routes; everything else, the Telegram bot included, uses
// it through those routes, so every check of theirs applies.
func TestOnlyServerImportsAssistant(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "server" || rel == "assistant" {
			continue
		}
		for _, imp := range p.Imports {
			if imp == module+"/assistant" {
				t.Errorf("%s imports %s; only server may", p.ImportPath, imp)
			}
		}
	}
}

// TestAssistantImportsNoHTTP: the assistant reaches the REST routes through
// its Routes port in plain values (method, target, body; status, data,
// error); it builds and serves no HTTP request itself. (Its engines' client
// of a model service, in ai, is HTTP of its own, so the rule is on direct
// imports.)
func TestAssistantImportsNoHTTP(t *testing.T) {
	found := false
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/assistant" {
			continue
		}
		found = true
		for _, imp := range p.Imports {
			if imp == "net/http" || strings.HasPrefix(imp, "net/http/") {
				t.Errorf("assistant imports %s; it reaches the routes only through its Routes port", imp)
			}
		}
	}
	if !found {
		t.Error("package assistant not found")
	}
}

// TestOnlyServerStoreAndCLIImportTelegram: the bot is wired by the
// composition root, fed by the server's webhook route, its chats linked on
// the web app's Messaging page, and persisted by store through its port;
// the domain and the rest never reach it.
func TestOnlyServerStoreAndCLIImportTelegram(t *testing.T) {
	allowed := map[string]bool{"server": true, "web": true, "cmd/finance": true, "store": true, "telegram": true}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if allowed[rel] || strings.HasPrefix(rel, "telegram/") {
			continue
		}
		for _, imp := range p.Imports {
			if imp == module+"/telegram" {
				t.Errorf("%s imports %s; only server, web, store and cmd/finance may", p.ImportPath, imp)
			}
		}
	}
}

// TestOnlyAllowedPackagesImportLibraries checks the "only X imports Y" rules
// across every package, so a new package cannot quietly break them.
func TestOnlyAllowedPackagesImportLibraries(t *testing.T) {
	owners := map[string][]string{
		"github.com/uptrace/bun":       {"store"},
		"modernc.org/sqlite":           {"store"},
		"github.com/jackc/pgx":         {"store"},
		"github.com/uptrace/bunrouter": {"server", "web"},
		"github.com/mark3labs/mcp-go":  {"mcpserver"},
		"github.com/spf13/cobra":       {"cmd/finance"},
		"github.com/adrg/xdg":          {"cmd/finance"},
	}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			for lib, allowed := range owners {
				if (imp == lib || strings.HasPrefix(imp, lib+"/")) && !slices.Contains(allowed, rel) {
					t.Errorf("%s imports %s; only %s may", p.ImportPath, imp, strings.Join(allowed, " and "))
				}
			}
		}
	}
}

// TestTestkitOnlyInTests: the shared test kit (internal/testkit) opens
// databases and signs users in with a known password; no program may import
// it. go list reports the imports of a package without its tests.
func TestTestkitOnlyInTests(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, imp := range p.Imports {
			if imp == module+"/internal/testkit" {
				t.Errorf("%s imports %s; only tests may", p.ImportPath, imp)
			}
		}
	}
}

// TestOnlyImagebuildImportsContainerregistry: the container image is
// assembled by the release's build tool; the service binary carries none of
// it.
func TestOnlyImagebuildImportsContainerregistry(t *testing.T) {
	const lib = "github.com/google/go-containerregistry"
	for _, p := range listPackages(t) {
		if p.ImportPath == module+"/cmd/imagebuild" {
			continue
		}
		for _, dep := range p.Deps {
			if dep == lib || strings.HasPrefix(dep, lib+"/") {
				t.Errorf("%s depends on %s; only cmd/imagebuild may", p.ImportPath, dep)
				break
			}
		}
	}
}

// TestServiceBinaryLeavesOutHeavyLibraries: libraries that only the build
// tools and the tests need stay out of the service binary, whose size and
// start-up they would grow (the container image builder, fonts for drawing
// test receipts, the test helpers).
func TestServiceBinaryLeavesOutHeavyLibraries(t *testing.T) {
	heavy := []string{"github.com/google/go-containerregistry", "golang.org/x/image/font", "github.com/google/go-cmp",
		module + "/internal/testkit", module + "/ai/aitest"}
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/cmd/finance" {
			continue
		}
		for _, dep := range p.Deps {
			for _, lib := range heavy {
				if dep == lib || strings.HasPrefix(dep, lib+"/") {
					t.Errorf("cmd/finance depends on %s", dep)
				}
			}
		}
		return
	}
	t.Fatal("no cmd/finance package")
}
