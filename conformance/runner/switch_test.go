package runner

import "testing"

func TestSwitchScript(t *testing.T) {
	for cmd, want := range map[string]string{
		"./switch-gateway.sh":           `./switch-gateway.sh "$1"`,
		" /opt/lab/switch ":             `/opt/lab/switch "$1"`,
		"systemctl restart gw-$1":       "systemctl restart gw-$1",
		"./switch.sh $CONFORM_VARIANT":  "./switch.sh $CONFORM_VARIANT",
		"nohup ./restart.sh &":          "nohup ./restart.sh &",
		"./a.sh; ./b.sh":                "./a.sh; ./b.sh",
		"GATEWAY=grpc ./restart.sh":     "GATEWAY=grpc ./restart.sh",
		`echo "$1" >> log`:              `echo "$1" >> log`,
		"./restart.sh # picks the mode": "./restart.sh # picks the mode",
	} {
		if got := switchScript(cmd); got != want {
			t.Errorf("switchScript(%q) = %q, want %q", cmd, got, want)
		}
	}
}
