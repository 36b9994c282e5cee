package fake

import (
	"strings"

	"github.com/dbplatform/platform-go"
)

// A branch's diff is what a deploy request from it into its parent would
// change now (planDeploy's operations, as a deployment's check lists them); a deploy
// request's diff is its deployment's operations once its check has listed
// them, and until then the same comparison of its two branches as they
// are. Each table's raw text is a line diff of its definitions.

func schemaDiffRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/diff", op: "diff_branch", handler: read(diffBranch)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/refresh-schema", op: "refresh_branch_schema", handler: act(refreshBranchSchema)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/diff", op: "get_deploy_request_diff", handler: read(deployRequestDiff)},
	}
}

func diffBranch(c *call) (any, error) {
	b := c.branch
	if b.parent == "" {
		return nil, unprocessable("branch %s has no parent branch to compare its schema with", b.name)
	}
	parent := b.db.branch(b.parent)
	if parent == nil {
		return nil, unprocessable("the parent branch %s of %s no longer exists", b.parent, b.name)
	}
	return renderDiff(planDeploy(b, parent).ops), nil
}

// refreshBranchSchema reads the branch's schema again: the fake's schema is
// always current, so only the time it was last read moves.
func refreshBranchSchema(c *call) (any, error) {
	b := c.branch
	if !b.ready {
		return nil, unprocessable("branch %s is not ready", b.name)
	}
	b.schemaUpdated = c.now
	return nil, nil
}

func deployRequestDiff(c *call) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	ops := dr.dep.ops
	if ops == nil && dr.deployedAt.IsZero() {
		ops = planDeploy(dr.head, dr.into).ops
	}
	return renderDiff(ops), nil
}

// renderDiff renders table changes as the API shows a diff.
func renderDiff(ops []*opRec) *platform.SchemaDiff {
	out := &platform.SchemaDiff{Tables: make([]*platform.TableDiff, 0, len(ops))}
	for _, op := range ops {
		raw := lineDiff(op.prev, op.create)
		out.Tables = append(out.Tables, &platform.TableDiff{Name: op.table, Raw: raw, HTML: htmlPre(raw)})
	}
	return out
}

// lineDiff compares two texts line by line (a longest common subsequence)
// and returns every line prefixed "-" (only in before), "+" (only in
// after) or " " (in both), removals before the additions they replace.
func lineDiff(before, after string) string {
	a, b := splitLines(before), splitLines(after)
	// common[i][j] is the length of the longest common subsequence of
	// a[i:] and b[j:].
	common := make([][]int, len(a)+1)
	for i := range common {
		common[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	var out strings.Builder
	line := func(mark byte, text string) {
		out.WriteByte(mark)
		out.WriteString(text)
		out.WriteByte('\n')
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			line(' ', a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || common[i+1][j] >= common[i][j+1]):
			line('-', a[i])
			i++
		default:
			line('+', b[j])
			j++
		}
	}
	return out.String()
}

// splitLines cuts text into lines; "" has none.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimRight(text, "\n"), "\n")
}
