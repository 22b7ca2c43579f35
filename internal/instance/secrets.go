package instance

// What keeps the server's secrets out of the state: the write-only app_inputs_wo, which only the
// configuration carries, and store_password, which keeps the password null.

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// keepsPassword reports whether the state keeps the password: store_password is true, or not
// known yet (an import, or a state written before the attribute existed: the default).
func (m Model) keepsPassword() bool {
	return m.StorePassword.IsNull() || m.StorePassword.IsUnknown() || m.StorePassword.ValueBool()
}

// planPassword plans the password store_password asks for: null when it is not kept; unknown
// when it is kept again after being left out (the update reads it), or while store_password
// itself is unknown.
func (m *Model) planPassword(state *Model) {
	switch {
	case m.StorePassword.IsUnknown():
		m.Password = types.StringUnknown() // decided at apply
	case !m.keepsPassword():
		m.Password = types.StringNull()
	case state != nil && !state.keepsPassword() && m.Password.IsNull():
		m.Password = types.StringUnknown()
	}
}
