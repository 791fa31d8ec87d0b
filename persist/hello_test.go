package persist

import (
	"strings"
	"testing"
)

func TestSettingsFlattenNested(t *testing.T) {
	got := Settings(struct {
		Mode   string
		Limits struct{ TimeoutMs int }
		Allow  []string
	}{Mode: "off", Limits: struct{ TimeoutMs int }{5}, Allow: []string{"ls"}})
	want := map[string]string{"Mode": `"off"`, "Limits.TimeoutMs": "5", "Allow": `["ls"]`}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
}

func TestAgreeNamesTheSettingThatDiffers(t *testing.T) {
	own := Hello{Version: "1", Root: "/p", Settings: map[string]string{"persist": "10m0s", "Shell": `""`}}
	for _, tc := range []struct {
		name    string
		h       Hello
		setting string
	}{
		{"same", Hello{Version: "1", Settings: map[string]string{"persist": "10m0s", "Shell": `""`}}, ""},
		{"another value", Hello{Version: "1", Settings: map[string]string{"persist": "2s", "Shell": `""`}}, "persist"},
		{"one missing", Hello{Version: "1", Settings: map[string]string{"persist": "10m0s"}}, "Shell"},
		{"one more", Hello{Version: "1", Settings: map[string]string{"persist": "10m0s", "Shell": `""`, "New": "1"}}, "New"},
		{"another version", Hello{Version: "2", Settings: own.Settings}, "version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := agree(own, tc.h)
			switch {
			case tc.setting == "" && w != nil:
				t.Fatalf("refused: %s", w.Error)
			case tc.setting != "" && (w == nil || w.Setting != tc.setting || !strings.Contains(w.Error, tc.setting)):
				t.Fatalf("want %s named, got %+v", tc.setting, w)
			}
		})
	}
}
