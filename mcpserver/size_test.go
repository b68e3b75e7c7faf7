package mcpserver

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/finance-app/finance/auth"
)

// The context budget of tools/list for a key holding every scope: what an
// agent pays before its first call. The sizes are of the JSON as sent
// (compact); the test prints them, so a change that grows them shows in the
// test log before it reaches a budget.
//
// 95 tools fit in 100 KiB, 40 KiB of it read by a model (69 tools were
// 410 KB and 126 KB): descriptions say what the name and schema do not,
// titles are sent only where they say more than the name, an update tool's
// arguments leave out what its create tool already says of them word for
// word, rules every tool shares are said once in the instructions (paging, the
// payment methods' ids, idempotency keys), input schemas leave out what the
// route checks and answers by name (string lengths, uniqueness, unknown
// arguments, a create's nulls, dates' format, sorting a short list), and
// only reads carry an output schema (a write answers the record its read
// tool describes; a list's describes its compact item). A new tool pays for
// itself: make room rather than raise a budget.
//
// Room made for the reporting currency's fields (102,344 → 97,802 bytes in
// all, 40,765 → 40,023 read by a model):
//   - a list's pagination is written {"type": "object"} in its output
//     schema, its four counts named once in the instructions: 3,800 bytes
//     over twenty list tools;
//   - months (YYYY-MM, the month argument's pattern) and days of the month
//     (an argument named *_day, 1 to 31, 31 its last day) are said once in
//     the instructions, as dates are: 312 bytes of input schemas;
//   - sortOrder's asc or desc is said once in the instructions: 176 bytes;
//   - a default or bounds that the value's description states in words
//     ("defaults to 3", "1 to 360") are not repeated as keywords, and "Null
//     clears it" is left to the instructions: 177 bytes;
//   - descriptions do not repeat what the input schema or the instructions
//     say (a split's 2 to 20 parts, the fields a statement's update takes,
//     "31 = month end"): 77 bytes.
const (
	// budgetToolsList bounds the whole tools/list result.
	budgetToolsList = 100 << 10
	// budgetPrompt bounds what a model reads of every tool: names,
	// descriptions and input schemas (output schemas check results).
	budgetPrompt = 40 << 10
	// budgetTool bounds one tool: its name, title, description, hints and
	// input schema. Output schemas are counted in the whole list only.
	budgetTool = 4 << 10
)

func TestToolsListSize(t *testing.T) {
	env := newTestEnv(t)
	msg := env.rpc(env.key(auth.ScopeAll), "tools/list", map[string]any{})
	var list struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(msg.Result, &list); err != nil {
		t.Fatal(err)
	}
	size := func(v any) int {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	type measured struct {
		name          string
		tool, outputs int
	}
	var tools []measured
	whole, prompt, inputs, outputs := size(json.RawMessage(msg.Result)), 0, 0, 0
	for _, tl := range list.Tools {
		var name string
		_ = json.Unmarshal(tl["name"], &name)
		out := len(tl["outputSchema"])
		inputs += len(tl["inputSchema"])
		outputs += out
		prompt += len(tl["name"]) + len(tl["description"]) + len(tl["inputSchema"])
		withoutOutput := map[string]json.RawMessage{}
		for k, v := range tl {
			if k != "outputSchema" {
				withoutOutput[k] = v
			}
		}
		tools = append(tools, measured{name, size(withoutOutput), out})
	}
	slices.SortFunc(tools, func(a, b measured) int { return b.tool - a.tool })
	t.Logf("tools/list for an all-scope key: %d tools, %d bytes (budget %d); names+descriptions+input schemas %d bytes (budget %d); input schemas %d, output schemas %d",
		len(list.Tools), whole, budgetToolsList, prompt, budgetPrompt, inputs, outputs)
	for _, m := range tools[:min(5, len(tools))] {
		t.Logf("  %-36s %5d bytes without its output schema (budget %d), output schema %d", m.name, m.tool, budgetTool, m.outputs)
	}
	if whole > budgetToolsList {
		t.Errorf("tools/list is %d bytes, over the %d byte budget", whole, budgetToolsList)
	}
	if prompt > budgetPrompt {
		t.Errorf("names, descriptions and input schemas are %d bytes, over the %d byte budget", prompt, budgetPrompt)
	}
	for _, m := range tools {
		if m.tool > budgetTool {
			t.Errorf("%s is %d bytes without its output schema, over the %d byte budget", m.name, m.tool, budgetTool)
		}
	}
}
