package sim

import "testing"

func BenchmarkLocal30k(b *testing.B) { benchRun(b, benchScenario(b, 20, 1500, 200)) }
