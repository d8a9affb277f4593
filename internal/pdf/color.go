package pdf

import (
	"fmt"
	"strconv"
)

// Color is an RGB colour.
type Color struct{ R, G, B uint8 }

// Colours a document uses when the caller names none.
var (
	Black = Color{0x1f, 0x23, 0x28}
	Grey  = Color{0x6a, 0x71, 0x7a}
	Light = Color{0xe6, 0xe8, 0xeb}
)

// ParseColor reads "#RRGGBB", the one form the settings accept: it is
// exact, and every design tool writes it.
func ParseColor(s string) (Color, error) {
	if len(s) != 7 || s[0] != '#' {
		return Color{}, fmt.Errorf("a colour is written #RRGGBB, such as #1A5FB4")
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return Color{}, fmt.Errorf("a colour is written #RRGGBB, such as #1A5FB4")
	}
	return Color{uint8(v >> 16), uint8(v >> 8), uint8(v)}, nil
}

// Hex writes c as "#RRGGBB".
func (c Color) Hex() string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }
