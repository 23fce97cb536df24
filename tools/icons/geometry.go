package main

// The mark as designed, in thousandths of the icon's width from its top
// left corner: a speech bubble, its tail at the bottom left, and an arrow
// pointing right (a message passed on) cut out of it.
var (
	bubble     = rect{200, 230, 800, 680, 130}
	tail       = [3]point{{280, 620}, {460, 670}, {240, 810}}
	arrowWidth = int64(38) // half the stroke
	arrow      = [][2]point{
		{{360, 455}, {630, 455}}, // the shaft
		{{550, 375}, {640, 455}}, // the head
		{{550, 535}, {640, 455}},
	}
	// cornerRadius rounds the icon's own square when it does not fill
	// it; about what iOS and Android round theirs by.
	cornerRadius = int64(220)
)

type point struct{ x, y int64 }

func (p point) sub(q point) point { return point{p.x - q.x, p.y - q.y} }
func (p point) dot(q point) int64 { return p.x*q.x + p.y*q.y }

// cross is the z of p × q: its sign says on which side of q p lies.
func (p point) cross(q point) int64 { return p.x*q.y - p.y*q.x }

// rect is a rectangle with rounded corners of radius r.
type rect struct{ x0, y0, x1, y1, r int64 }

func (b rect) contains(p point) bool {
	q := point{clamp(p.x, b.x0+b.r, b.x1-b.r), clamp(p.y, b.y0+b.r, b.y1-b.r)}
	d := p.sub(q)
	return d.dot(d) <= b.r*b.r
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// inCapsule says whether p is within r of the segment from a to b.
func inCapsule(p, a, b point, r int64) bool {
	d, v := b.sub(a), p.sub(a)
	switch t := v.dot(d); {
	case t <= 0:
		return v.dot(v) <= r*r
	case t >= d.dot(d):
		w := p.sub(b)
		return w.dot(w) <= r*r
	default:
		c := v.cross(d)
		return c*c <= r*r*d.dot(d)
	}
}

func inTriangle(p point, t [3]point) bool {
	c0 := t[1].sub(t[0]).cross(p.sub(t[0]))
	c1 := t[2].sub(t[1]).cross(p.sub(t[1]))
	c2 := t[0].sub(t[2]).cross(p.sub(t[2]))
	return (c0 >= 0 && c1 >= 0 && c2 >= 0) || (c0 <= 0 && c1 <= 0 && c2 <= 0)
}

// geometry is the design of one icon in its samples' coordinates:
// half-samples, so that every sample's centre is a whole number.
type geometry struct {
	ic     icon
	unit   int64 // the icon's width in half-samples
	bubble rect
	tail   [3]point
	arrow  [][2]point
	stroke int64
	corner int64
}

func newGeometry(ic icon) geometry {
	g := geometry{ic: ic, unit: int64(2 * ic.size * samples)}
	g.bubble = rect{g.coord(bubble.x0), g.coord(bubble.y0), g.coord(bubble.x1), g.coord(bubble.y1), g.length(bubble.r)}
	for i, p := range tail {
		g.tail[i] = g.point(p)
	}
	for _, s := range arrow {
		g.arrow = append(g.arrow, [2]point{g.point(s[0]), g.point(s[1])})
	}
	g.stroke = g.length(arrowWidth)
	g.corner = (cornerRadius*g.unit + 500) / 1000 // the square is never scaled
	return g
}

// coord places a coordinate of the mark: scaled about the icon's centre,
// then rounded to the nearest half-sample.
func (g geometry) coord(c int64) int64 {
	micro := 500*1000 + (c-500)*g.ic.scale // millionths of the width
	return (micro*g.unit + 500000) / 1000000
}

func (g geometry) point(p point) point { return point{g.coord(p.x), g.coord(p.y)} }

func (g geometry) length(l int64) int64 { return (l*g.ic.scale*g.unit + 500000) / 1000000 }

func (g geometry) inBackground(p point) bool {
	return g.ic.fullBleed || rect{0, 0, g.unit, g.unit, g.corner}.contains(p)
}

func (g geometry) inMark(p point) bool {
	if !g.bubble.contains(p) && !inTriangle(p, g.tail) {
		return false
	}
	for _, s := range g.arrow {
		if inCapsule(p, s[0], s[1], g.stroke) {
			return false
		}
	}
	return true
}
