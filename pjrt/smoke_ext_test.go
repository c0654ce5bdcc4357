package pjrt_test

import (
	"testing"
)

func TestSmoke(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.name, func(t *testing.T) {
			plugin := p.load(t)
			maj, min := plugin.Version()
			t.Logf("%v attrs=%v ext=%v", plugin, plugin.Attributes(), plugin.Extensions())
			_ = maj
			_ = min
			c := p.client(t, 8)
			t.Logf("%v devs=%d addressable=%d mems=%d", c, len(c.Devices()), len(c.AddressableDevices()), len(c.Memories()))
			for _, d := range c.Devices()[:2] {
				t.Logf("dev %d kind=%q str=%q debug=%q attrs=%v mems=%v def=%v", d.ID(), d.Kind(), d.String(), d.DebugString(), d.Attributes(), d.Memories(), d.DefaultMemory())
			}
			for _, m := range c.Memories()[:2] {
				t.Logf("mem %d kind=%q kindid=%d str=%q by=%v", m.ID(), m.Kind(), m.KindID(), m.String(), m.AddressableBy())
			}
		})
	}
}
