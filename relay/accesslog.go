package relay

import (
	"strings"

	"relay/webclient"
)

// unmatched is the access log's path for a request that matched no route
// and names no file of the web client.
const unmatched = "(unmatched)"

// routePatterns are the router's patterns, for the access log.
type routePatterns []routePattern

type routePattern struct {
	pattern  string   // "/api/accounts/:username"
	segments []string // "", "api", "accounts", ":username"
}

func (rp *routePatterns) add(pattern string) {
	for _, p := range *rp {
		if p.pattern == pattern {
			return // another method of the same route
		}
	}
	*rp = append(*rp, routePattern{pattern: pattern, segments: strings.Split(pattern, "/")})
}

// match returns the pattern that path matches, or "". It matches as the
// router does for these patterns: a ":name" segment is any one non-empty
// segment, every other segment itself.
func (rp routePatterns) match(path string) string {
	segments := strings.Split(path, "/")
next:
	for _, p := range rp {
		if len(p.segments) != len(segments) {
			continue
		}
		for i, seg := range p.segments {
			if strings.HasPrefix(seg, ":") {
				if segments[i] == "" {
					continue next
				}
			} else if seg != segments[i] {
				continue next
			}
		}
		return p.pattern
	}
	return ""
}

// logPath is what the access log says of a request's path: the pattern of
// the route it matches, whatever the method (so a 405 or a preflight is
// logged by its route too); else the web client's file it asks for, whose
// name is public; else "(unmatched)". Never the path itself, which can
// carry a username or a device id (ADR 0025).
func (s *Server) logPath(urlPath string) string {
	if p := s.patterns.match(urlPath); p != "" {
		return p
	}
	if !strings.HasPrefix(urlPath, "/api/") {
		if name, ok := webclient.File(urlPath); ok {
			return name
		}
	}
	return unmatched
}
