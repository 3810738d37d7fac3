package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/conform-dev/conform/conformance/report"
)

// ShellSwitch is an Experiment.Switch that runs the user's command cmd under sh before a
// round whose variant differs from the last: the variant's label is $1 and $CONFORM_VARIANT,
// and a cmd that is just a script's path gets the label as its argument (see switchScript).
// It says on log which variant it switches to, and returns what the command printed (at
// most 4,000 bytes), URLs stripped of their credentials.
func ShellSwitch(cmd string, log io.Writer) func(ctx context.Context, label string) (string, error) {
	return func(ctx context.Context, label string) (string, error) {
		c := exec.CommandContext(ctx, "sh", "-c", switchScript(cmd), "conform-switch", label)
		c.Env = append(os.Environ(), "CONFORM_VARIANT="+label)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		fmt.Fprintf(log, "switching to %s: %s\n", label, report.RedactURLs(cmd))
		err := c.Run()
		text := strings.TrimSpace(out.String())
		if len(text) > 4000 {
			text = text[:4000] + "…"
		}
		text = report.RedactURLs(text)
		if err != nil {
			return text, fmt.Errorf("%s: %v: %s", report.RedactURLs(cmd), err, text)
		}
		return text, nil
	}
}

// switchScript is the shell text run for a switch command. A command that is one word (a
// script's path, no spaces or shell syntax) is called with the label as its argument, so
// `./switch-gateway.sh` runs `./switch-gateway.sh grpc`; anything else runs as written, with
// the label as $1 and $CONFORM_VARIANT (`systemctl restart gw-$1`).
func switchScript(cmd string) string {
	w := strings.TrimSpace(cmd)
	if w == "" || strings.ContainsAny(w, " \t\n&;|<>()$`'\"\\*?#~=") {
		return cmd
	}
	return w + ` "$1"`
}
