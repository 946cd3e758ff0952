package simulator

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Encode is the cursor's opaque form (GET /payments nextCursor/prevCursor,
// and the dashboard's pages): base64url of "v1|<micros>|<id>|<n|p>".
func (c *Cursor) Encode() string {
	dir := "n"
	if c.Before {
		dir = "p"
	}
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("v1|%d|%s|%s", c.Date.UnixMicro(), c.ID, dir)))
}

// ParseCursor reads a cursor made by Encode.
func ParseCursor(s string) (*Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(string(b), "|")
	if len(parts) != 4 || parts[0] != "v1" || (parts[3] != "n" && parts[3] != "p") || parts[2] == "" {
		return nil, errors.New("malformed cursor")
	}
	us, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return nil, err
	}
	return &Cursor{Date: time.UnixMicro(us).UTC(), ID: parts[2], Before: parts[3] == "p"}, nil
}
