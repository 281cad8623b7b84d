package web

import (
	"strings"
	"testing"
)

func TestParseBulk(t *testing.T) {
	rows, err := parseBulk("email, name ,role\nada@example.com,Ada Lovelace,Backend engineer\n\n\"grace@example.com\",\"Hopper, Grace\",Compilers\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Line != 2 || rows[1].Line != 4 {
		t.Fatalf("rows %+v, want lines 2 and 4", rows)
	}
	if r := rows[1].Reg; r.Name != "Hopper, Grace" || r.Email != "grace@example.com" || r.Role != "Compilers" {
		t.Errorf("row 2 = %+v", r)
	}
	rows, err = parseBulk("Alan Turing,alan@example.com,Cryptanalyst,senior,default")
	if err != nil || len(rows) != 1 || rows[0].Reg.Level != "senior" || rows[0].Reg.Blueprint != "default" {
		t.Errorf("without a header: %+v, %v", rows, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"", "no candidates"},
		{"name,email\n", "no candidates"},
		{"name,salary\nAda,1", `column "salary"`},
		{"a,b,c,d,e,f", "line 1 has 6 fields"},
		{"a,\"b", "not valid CSV"},
		{strings.Repeat("Ada,ada@example.com\n", maxBulkRows+1), "more than 200"},
		{strings.Repeat("x", maxBulkBytes+1), "larger than 256 KB"},
	} {
		if _, err := parseBulk(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseBulk(%.20q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
