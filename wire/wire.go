// Package wire is termhelper's JSON-RPC 2.0 connection over a byte
// stream: the framing (detected per host, LSP headers or a message per
// line), a reader that answers garbage and keeps reading, writing in the
// host's framing, and calls and notifications both ways. It knows no
// method: the front ends (package rpc, package mcp) give the messages
// their meaning.
package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The error codes of the JSON-RPC 2.0 specification.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// ID is a request's id: a number or a string.
type ID struct {
	Num      uint64
	Str      string
	IsString bool // Str is the id, even when empty
}

// String is the id as JSON writes it.
func (id ID) String() string {
	if id.IsString {
		return strconv.Quote(id.Str)
	}
	return strconv.FormatUint(id.Num, 10)
}

// MarshalJSON writes the id as a number or a string.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsString {
		return json.Marshal(id.Str)
	}
	return json.Marshal(id.Num)
}

// UnmarshalJSON reads a number or a string.
func (id *ID) UnmarshalJSON(data []byte) error {
	var n uint64
	if err := json.Unmarshal(data, &n); err == nil {
		*id = ID{Num: n}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*id = ID{Str: s, IsString: true}
	return nil
}

// Request is a request or a notification from the peer.
type Request struct {
	Method string
	Params *json.RawMessage // nil when absent
	ID     ID
	Notif  bool // a notification: no answer is sent
}

// Error is a JSON-RPC error, as sent in an answer.
type Error struct {
	Code    int64            `json:"code"`
	Message string           `json:"message"`
	Data    *json.RawMessage `json:"data,omitempty"`
}

// SetData sets Data to v's JSON.
func (e *Error) SetData(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("wire: error data: " + err.Error())
	}
	e.Data = (*json.RawMessage)(&b)
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}
