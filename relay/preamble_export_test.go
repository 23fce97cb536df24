package relay

// RouteCheck is one check of a route's preamble: its name and, for the
// body, its bound.
type RouteCheck struct {
	Name  string
	Limit int64
}

// RoutePreamble is a route and the checks it declares, in their order.
type RoutePreamble struct {
	Method, Pattern string
	Checks          []RouteCheck
}

// Preambles is every route's declared preamble (routes.go).
func (s *Server) Preambles() []RoutePreamble {
	var out []RoutePreamble
	for _, rt := range s.routeTable() {
		p := RoutePreamble{Method: rt.method, Pattern: rt.pattern}
		for _, c := range rt.checks {
			p.Checks = append(p.Checks, RouteCheck{Name: c.name, Limit: c.limit})
		}
		out = append(out, p)
	}
	return out
}
