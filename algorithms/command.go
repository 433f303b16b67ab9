package algorithms

// CommandOf is the command INFO commandstats counts each of lim's
// decisions under: what a ServerCommander says, else "evalsha".
func CommandOf(lim Limiter) string {
	if c, ok := lim.(ServerCommander); ok {
		return c.ServerCommand()
	}
	return "evalsha"
}
