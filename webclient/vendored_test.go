package webclient

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// vendored is webclient/vendored.json, written by
// scripts/vendor-clientlibs.sh (ADR 0098).
type vendored struct {
	Entry    string `json:"entry"`
	Packages []struct {
		Name, Version, License, Integrity string
	} `json:"packages"`
	Files map[string]string `json:"files"` // served path -> sha256, hex
}

func readVendored(t *testing.T) vendored {
	t.Helper()
	b, err := os.ReadFile("vendored.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vendored
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// vendorMismatches lists how the files under vendor/ in fsys differ from
// the manifest: a file changed, missing, or not in it.
func vendorMismatches(fsys fs.FS, v vendored) []string {
	var bad []string
	seen := map[string]bool{}
	err := fs.WalkDir(fsys, vendorDir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		seen[name] = true
		want, ok := v.Files[name]
		if !ok {
			bad = append(bad, name+": not in vendored.json")
			return nil
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			bad = append(bad, name+": changed")
		}
		return nil
	})
	if err != nil {
		bad = append(bad, err.Error())
	}
	for name := range v.Files {
		if !seen[name] {
			bad = append(bad, name+": missing")
		}
	}
	slices.Sort(bad)
	return bad
}

// TestVendoredFiles: the vendored libraries are served exactly as
// scripts/vendor-clientlibs.sh wrote them, from the packages and versions
// that tools/clientlibs/package-lock.json pins, each with its licence. A
// hand edit of a vendored file, a file added or one left out of the
// binary (embed skips names starting with "_" unless told) fails here.
// The controls: one byte changed, one file added, one removed.
func TestVendoredFiles(t *testing.T) {
	v := readVendored(t)
	if len(v.Files) == 0 || v.Files[v.Entry] == "" {
		t.Fatalf("vendored.json lists %d files, entry %q among them: %v", len(v.Files), v.Entry, v.Files[v.Entry] != "")
	}
	if bad := vendorMismatches(Embedded(), v); len(bad) > 0 {
		t.Fatalf("the embedded vendor/ is not what vendored.json lists (run scripts/vendor-clientlibs.sh, never edit by hand): %q", bad)
	}

	lockBytes, err := os.ReadFile("../tools/clientlibs/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version, Integrity string
			Dev                bool
		}
	}
	if err := json.Unmarshal(lockBytes, &lock); err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Packages {
		l, ok := lock.Packages["node_modules/"+p.Name]
		if !ok || l.Dev || l.Version != p.Version || l.Integrity != p.Integrity || !strings.HasPrefix(p.Integrity, "sha512-") {
			t.Errorf("%s@%s (%s) is not what the lockfile pins: %+v", p.Name, p.Version, p.Integrity, l)
		}
		if p.License != "MIT" {
			t.Errorf("%s is under %q, which ADR 0098 did not weigh", p.Name, p.License)
		}
		if _, ok := v.Files[vendorDir+"/"+p.Name+"@"+p.Version+"/LICENSE"]; !ok {
			t.Errorf("%s@%s is vendored without its LICENSE", p.Name, p.Version)
		}
	}

	changed := fstest.MapFS{}
	for name := range v.Files {
		b, _ := fs.ReadFile(Embedded(), name)
		changed[name] = &fstest.MapFile{Data: b}
	}
	if bad := vendorMismatches(changed, v); len(bad) > 0 {
		t.Fatalf("a faithful copy differs: %q", bad)
	}
	entry := changed[v.Entry]
	entry.Data = append(slices.Clip(entry.Data), ' ')
	changed[vendorDir+"/extra.js"] = &fstest.MapFile{Data: []byte("export {};")}
	var dropped string
	for name := range v.Files {
		if strings.Contains(name, "/_") {
			dropped = name
			break
		}
	}
	delete(changed, dropped)
	want := []string{dropped + ": missing", v.Entry + ": changed", vendorDir + "/extra.js: not in vendored.json"}
	slices.Sort(want)
	if got := vendorMismatches(changed, v); !slices.Equal(got, want) {
		t.Fatalf("controls: got %q, want %q", got, want)
	}
}

// TestShellOfVendored: the shell caches the vendored modules, which the
// client imports and needs offline, but not their licences and type
// declarations, which the browser never loads.
func TestShellOfVendored(t *testing.T) {
	v := readVendored(t)
	sh, err := shellOf(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	for name := range v.Files {
		in := slices.Contains(sh.Files, "/"+name)
		if want := strings.HasSuffix(name, ".js"); in != want {
			t.Errorf("%s in the shell: %v, want %v", name, in, want)
		}
	}
}

// TestVendoredServed: a vendored module is served as the client's own
// are, as JavaScript (a module of another type is refused under nosniff)
// with the same Content-Security-Policy, and its bytes as vendored.
func TestVendoredServed(t *testing.T) {
	v := readVendored(t)
	w := httptest.NewRecorder()
	Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/"+v.Entry, nil))
	want, _ := fs.ReadFile(Embedded(), v.Entry)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/javascript") ||
		w.Header().Get("Content-Security-Policy") != CSP || !bytes.Equal(w.Body.Bytes(), want) {
		t.Fatalf("GET /%s: %d, %q, CSP %q, %d bytes", v.Entry, w.Code, w.Header().Get("Content-Type"), w.Header().Get("Content-Security-Policy"), w.Body.Len())
	}
	if name, ok := File("/" + v.Entry); !ok || name != "/"+v.Entry {
		t.Fatalf("File(%q) = %q, %v", v.Entry, name, ok)
	}
}
