package fake

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lineDiff renders every table of a diff; this test is inside the package
// to reach it with definitions the API tests would need many branches for.

func TestLineDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{name: "create", after: "CREATE TABLE `t` (\n  id int\n)", want: "+CREATE TABLE `t` (\n+  id int\n+)\n"},
		{name: "drop", before: "CREATE TABLE `t` (\n  id int\n)", want: "-CREATE TABLE `t` (\n-  id int\n-)\n"},
		{name: "same", before: "a\nb", after: "a\nb", want: " a\n b\n"},
		{name: "nothing", want: ""},
		{
			name:   "added column",
			before: "CREATE TABLE `t` (\n  id int,\n  PRIMARY KEY (id)\n)",
			after:  "CREATE TABLE `t` (\n  id int,\n  email text,\n  PRIMARY KEY (id)\n)",
			want:   " CREATE TABLE `t` (\n   id int,\n+  email text,\n   PRIMARY KEY (id)\n )\n",
		},
		{
			name:   "changed line: the removal first",
			before: "a\nb\nc",
			after:  "a\nB\nc",
			want:   " a\n-b\n+B\n c\n",
		},
		{name: "trailing newline ignored", before: "a\n", after: "a", want: " a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, lineDiff(tt.before, tt.after)); diff != "" {
				t.Errorf("lineDiff (-want +got):\n%s", diff)
			}
		})
	}
}
