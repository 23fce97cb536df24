package relay

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/julienschmidt/httprouter"
)

// What every handler shares: the request id, the status kept for the
// access log, errors rendered from the table (errors.go), JSON in and out.

type requestIDKey struct{}

func requestID(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey{}).(string)
	return id
}

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// statusWriter remembers the status for the access log. Unwrap lets
// http.ResponseController reach the real writer's Flush and deadlines.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// handler is an API endpoint: it writes its success answer itself and
// returns an error for everything else.
type handler func(w http.ResponseWriter, r *http.Request, p httprouter.Params) error

func (s *Server) handle(h handler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
		w.Header().Set("Cache-Control", "no-store")
		if err := h(w, r, p); err != nil {
			s.writeError(w, r, err)
		}
	}
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := toAPIError(err, requestID(r))
	if r.URL.Path == "/api/messages" {
		s.metrics.rejected.WithLabelValues(ae.code).Inc()
	}
	if ae.status >= 500 {
		s.log.Error("request failed", "request_id", requestID(r), "method", r.Method, "path", s.logPath(r.URL.Path), "err", err)
	}
	for k, v := range ae.header {
		w.Header().Set(k, v)
	}
	body := map[string]any{"error": ae.code, "message": ae.message}
	for k, v := range ae.extra {
		body[k] = v
	}
	writeJSON(w, ae.status, body)
}

// b64 is how keys and blobs, raw bytes on the server, go on the wire
// (docs/protocol.md): standard padded base64.
func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// maxJSON bounds the body of every JSON request but POST /api/messages.
const maxJSON = 16 << 10

// readBody reads a request body of at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, errRequestTimeout
		}
		return nil, codeBadJSON.errorf("could not read the request body")
	}
	return data, nil
}

// decodeJSON decodes a request body into dst: I-JSON (ADR 0022), then the
// shape dst wants. Its errors are 400 bad_json.
func decodeJSON(data []byte, dst any) error {
	if !jsontext.Value(data).IsValid() {
		return errBadJSON
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return codeBadJSON.errorf("the request body is not the JSON object this endpoint expects: %v", jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a decoding error without echoing client bytes.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q must be a %s", te.Field, te.Type)
	}
	return "malformed JSON"
}
