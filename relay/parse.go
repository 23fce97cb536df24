package relay

import "strconv"

// parseLastEventID reads the Last-Event-ID header of a stream request: a seq
// this device can have received, from 0 to head. "" means 0: replay all.
func parseLastEventID(v string, head int64) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > head || strconv.FormatInt(n, 10) != v {
		return 0, codeBadLastEventID.errorf(
			"Last-Event-ID must be a seq this device has received (0 to %d) in plain decimal; drop it to replay the whole queue", head)
	}
	return n, nil
}

// parseAck reads the body of POST /api/ack: {"upTo": seq}, decoded like
// every JSON body (decodeJSON). The range check against the device's head is
// queue.Ack's.
func parseAck(data []byte) (int64, error) {
	var body struct {
		UpTo *int64 `json:"upTo"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return 0, err
	}
	if body.UpTo == nil {
		return 0, codeBadAck.errorf("upTo (the last seq to delete) is required")
	}
	if *body.UpTo < 0 {
		return 0, codeBadAck.errorf("upTo must not be negative")
	}
	return *body.UpTo, nil
}
