// Package htmltest is test support for the HTML reports (tune's run
// report, registry's report): finding elements of a parsed page, reading
// its tables and the points of its charts.
package htmltest

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mtune/mtune/internal/chart"
)

// Attr returns the value of n's attribute key, or "".
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Elements returns the elements named tag below n, in document order.
func Elements(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.Data == tag {
			out = append(out, d)
		}
	}
	return out
}

// ByID returns the element with the id below n; the test fails if there
// is none.
func ByID(tb testing.TB, n *html.Node, id string) *html.Node {
	tb.Helper()
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && Attr(d, "id") == id {
			return d
		}
	}
	tb.Fatalf("no element #%s", id)
	return nil
}

// Text returns the text below n.
func Text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// Hrefs returns the targets of the links below n.
func Hrefs(n *html.Node) []string {
	var out []string
	for _, a := range Elements(n, "a") {
		out = append(out, Attr(a, "href"))
	}
	return out
}

// Rows returns the trimmed texts of the <td> cells of table #id, a row
// each; rows without <td> (the header) are left out.
func Rows(tb testing.TB, doc *html.Node, id string) [][]string {
	tb.Helper()
	var out [][]string
	for _, tr := range Elements(ByID(tb, doc, id), "tr") {
		var cells []string
		for _, td := range Elements(tr, "td") {
			cells = append(cells, strings.TrimSpace(Text(td)))
		}
		if cells != nil {
			out = append(out, cells)
		}
	}
	return out
}

// CheckRows fails the test if the rows differ.
func CheckRows(tb testing.TB, got, want [][]string) {
	tb.Helper()
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		tb.Errorf("rows\n got %q\nwant %q", got, want)
	}
}

// Series returns, per series of a chart (the data-name of its <g
// class="series">), the points of its polyline.
func Series(tb testing.TB, svg *html.Node) map[string][][2]float64 {
	tb.Helper()
	out := map[string][][2]float64{}
	for _, g := range Elements(svg, "g") {
		if Attr(g, "class") != "series" {
			continue
		}
		name := Attr(g, "data-name")
		for _, pl := range Elements(g, "polyline") {
			pts, err := chart.ParsePoints(Attr(pl, "points"))
			if err != nil {
				tb.Fatalf("series %q: %v", name, err)
			}
			out[name] = append(out[name], pts...)
		}
	}
	return out
}

// CheckSelfContained fails the test unless page is a complete HTML
// document that loads nothing from elsewhere (no script, src, url(),
// @import or link; template escaping left no ZgotmplZ), links only to
// targets starting with linkPrefix (none at all if it is ""), and whose
// <svg> parts are well-formed XML.
func CheckSelfContained(tb testing.TB, page, linkPrefix string) {
	tb.Helper()
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(page, "</html>\n") {
		tb.Error("not a complete HTML document")
	}
	for _, bad := range []string{"<script", "src=", "url(", "@import", "<link", "ZgotmplZ"} {
		if strings.Contains(page, bad) {
			tb.Errorf("page contains %q", bad)
		}
	}
	for _, h := range strings.Split(page, `href="`)[1:] {
		if linkPrefix == "" || !strings.HasPrefix(h, linkPrefix) {
			tb.Errorf("link %.40q is not to %q", h, linkPrefix+"…")
		}
	}
	for n, rest := 0, page; ; n++ {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		if j < 0 {
			tb.Fatal("unterminated <svg>")
		}
		d := xml.NewDecoder(strings.NewReader(rest[i : i+j+len("</svg>")]))
		for {
			if _, err := d.Token(); err != nil {
				if !errors.Is(err, io.EOF) {
					tb.Errorf("svg %d is not well-formed XML: %v", n, err)
				}
				break
			}
		}
		rest = rest[i+j:]
	}
}
