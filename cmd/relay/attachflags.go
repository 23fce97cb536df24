package main

import (
	"time"

	"relay/relay"
)

// The flags of the attachment store (ADR 0107), in a file of their own:
// what they bind, and what they must be.

type attachmentOptions struct {
	maxSize, quota int64
	maxAge         time.Duration
	rate           int
}

func bindAttachments(fs *flags, o *attachmentOptions, d relay.Config) {
	bind(fs, fs.Int64Var, &o.maxSize, "attachment-max-size", "RELAY_ATTACHMENT_MAX_SIZE", d.AttachmentMaxSize, "largest attachment in bytes, as uploaded (encrypted and padded)")
	bind(fs, fs.Int64Var, &o.quota, "attachment-quota", "RELAY_ATTACHMENT_QUOTA", d.AttachmentQuota, "bytes of attachments one account may store at once")
	bind(fs, fs.DurationVar, &o.maxAge, "attachment-max-age", "RELAY_ATTACHMENT_MAX_AGE", d.AttachmentMaxAge, "a finished attachment is deleted this long after its upload; at least --queue-max-age")
	bind(fs, fs.IntVar, &o.rate, "attachment-rate", "RELAY_ATTACHMENT_RATE", d.AttachmentsPerMinute, "attachments an account may start uploading per minute, also the burst")
}

func (o *attachmentOptions) check(queueAge time.Duration, fs *flags) error {
	switch {
	case o.maxSize < 1:
		return fs.invalid("attachment-max-size", "must be at least 1, not %d", o.maxSize)
	case o.quota < o.maxSize:
		return fs.invalid("attachment-quota", "(%d) must be at least --attachment-max-size (%d)", o.quota, o.maxSize)
	case o.rate < 1:
		return fs.invalid("attachment-rate", "must be at least 1, not %d", o.rate)
	case o.maxAge < queueAge:
		// A message still queued would name an attachment already gone.
		return fs.invalid("attachment-max-age", "(%v) must be at least --queue-max-age (%v)", o.maxAge, queueAge)
	}
	return nil
}
