package agent

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"

	"golang.org/x/crypto/bcrypt"
)

// The control channel between the host (package machines) and a machine's agent is a socketpair
// passed to the machine's PID 1 as file descriptor 3 (exec.Cmd's ExtraFiles[0]) and on to the
// agent, carrying one JSON object per line in each direction.
//
// Host to agent: OpPassword (the hash SSH checks; with an ID, answered by an OpResult with that
// ID once the hash is in use), OpRun (a script to run; its answer is an OpResult with the same
// ID), OpCancel (kill the run with that ID), OpPing (answered at once by an OpResult with the
// same ID, from the loop that reads the channel: the host's liveness check, which a stopped or
// wedged agent fails), OpShutdown (SIGTERM every process of the machine, SIGKILL what is left
// after ShutdownGrace, then exit, which ends PID 1 and with it the machine), OpConsole (sent
// with one end of a new socketpair as SCM_RIGHTS ancillary data: the agent serves SSH on that
// connection, as the machine's console; see console.go).
//
// The host bounds every call it makes with a deadline (package machines), so an agent that
// stops answering fails the call instead of holding it.
//
// Agent to host: OpReady once SSH listens on port 22 and a password hash is known, OpResult for
// a run, OpLog for a line worth the host's log (never a secret).
const (
	OpPassword = "password"
	OpRun      = "run"
	OpCancel   = "cancel"
	OpPing     = "ping"
	OpShutdown = "shutdown"
	OpConsole  = "console"
	OpReady    = "ready"
	OpResult   = "result"
	OpLog      = "log"
)

// Message is one line of the control channel. Which fields are set depends on Op.
type Message struct {
	Op     string            `json:"op"`
	ID     int64             `json:"id,omitempty"`     // OpRun, OpCancel, OpPing, OpResult; OpPassword when it wants an answer
	Hash   string            `json:"hash,omitempty"`   // OpPassword: a bcrypt hash, never the password
	Script string            `json:"script,omitempty"` // OpRun: run by /bin/sh -c
	Env    map[string]string `json:"env,omitempty"`    // OpRun: added to the script's environment
	Output string            `json:"output,omitempty"` // OpResult: stdout and stderr interleaved (its last MaxOutput bytes)
	Exit   int               `json:"exit"`             // OpResult: the script's exit code (-1 when it could not start)
	Error  string            `json:"error,omitempty"`  // OpResult, OpLog: what went wrong
}

// MaxOutput bounds the output an OpResult carries (its tail is kept: an install log's end says
// why it failed).
const MaxOutput = 256 << 10

// MaxLine bounds one line of the channel read by the host: an OpResult's MaxOutput bytes of
// output, each of which JSON may write as six (a control byte is \u00XX), with room for the
// message's other fields.
const MaxLine = 8 * MaxOutput

// NewEncoder is the channel's writer on either end. HTML escaping is off: it would write every
// <, > and & of an install log as six bytes, for nobody's browser.
func NewEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// HashPassword is how a machine's password is stored (in the machine's directory on the host,
// mode 0600) and handed to its agent: bcrypt, at HashCost, over the password's SHA-256 in
// base64. The SHA-256 step lets a password of any length count in full (bcrypt reads 72 bytes at
// most); bcrypt salts and slows guessing should the file leak. The cost is modest because every
// boot and every SSH login pays it on a host shared by up to a few dozen machines, and the
// password itself is the API's (resellerd keeps it anyway).
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword(prehash(password), HashCost)
	return string(h), err
}

// CheckPassword says whether password is the one hash was made from.
func CheckPassword(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), prehash(password)) == nil
}

// HashCost is bcrypt's cost for machine passwords (2^8 rounds, a few milliseconds).
const HashCost = 8

func prehash(password string) []byte {
	sum := sha256.Sum256([]byte(password))
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}
