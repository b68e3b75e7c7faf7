package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/finance-app/finance/server"
)

// Environment variables. Every flag of serve, and --data-dir, can be set by
// one: FINANCE_ and the flag's name in capitals, dashes made underscores
// (--rate-burst: FINANCE_RATE_BURST). A flag on the command line wins.
// The variable's value is parsed exactly as the flag's, so an invalid one
// stops the program with a message naming the variable instead of being
// ignored or misread.

// envAnnotation marks, on a flag, the environment variable that sets it.
const envAnnotation = "finance_env"

// envName is the environment variable of the flag name.
func envName(flag string) string {
	return "FINANCE_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// bindEnv gives every flag of fl its environment variable, and says so in
// the flag's help.
func bindEnv(fl *pflag.FlagSet) {
	fl.VisitAll(func(f *pflag.Flag) {
		env := envName(f.Name)
		f.Usage += " (env " + env + ")"
		_ = fl.SetAnnotation(f.Name, envAnnotation, []string{env})
	})
}

// applyEnv sets each flag of cmd that has an environment variable and was
// not given on the command line from that variable, when it is set and not
// empty. Every invalid value is reported, each naming its variable.
func applyEnv(cmd *cobra.Command) error {
	var errs []error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		names := f.Annotations[envAnnotation]
		if len(names) == 0 || f.Changed {
			return
		}
		v := os.Getenv(names[0])
		if v == "" {
			return
		}
		if err := f.Value.Set(v); err != nil {
			errs = append(errs, fmt.Errorf("environment variable %s=%q (it sets --%s): %s", names[0], v, f.Name, why(err)))
		}
	})
	return errors.Join(errs...)
}

// why explains a flag value's refusal: the values defined here say what
// they want, pflag's integers (--max-body) fail with the raw strconv error.
func why(err error) string {
	var num *strconv.NumError
	switch {
	case errors.As(err, &num) && errors.Is(num.Err, strconv.ErrRange):
		return "the number is too large"
	case errors.As(err, &num):
		return "want a whole number"
	}
	return err.Error()
}

// boolValue is an on/off flag that accepts the usual spellings of a switch,
// in any case: true/false, 1/0, yes/no, on/off. pflag's own bool flag takes
// strconv.ParseBool's set, which has no yes/no or on/off.
type boolValue bool

func (b *boolValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		*b = true
	case "0", "false", "no", "off":
		*b = false
	default:
		return errors.New("want true or false (also 1/0, yes/no, on/off)")
	}
	return nil
}

func (b *boolValue) String() string   { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) Type() string     { return "bool" }
func (b *boolValue) IsBoolFlag() bool { return true } // help shows it without a value

// boolVar defines an on/off flag; given alone (--access-log) it means true.
func boolVar(fl *pflag.FlagSet, p *bool, name string, value bool, usage string) {
	*p = value
	fl.Var((*boolValue)(p), name, usage)
	fl.Lookup(name).NoOptDefVal = "true"
}

// rateValue is a rate limit (N/s, N/min, N/h or off), checked when set.
type rateValue string

func (r *rateValue) Set(s string) error {
	if _, err := server.ParseRate(s, 0); err != nil {
		return err
	}
	*r = rateValue(s)
	return nil
}

func (r *rateValue) String() string { return string(*r) }
func (r *rateValue) Type() string   { return "rate" }

func rateVar(fl *pflag.FlagSet, p *string, name, value, usage string) {
	*p = value
	fl.Var((*rateValue)(p), name, usage)
}

// burstValue is the largest burst of a rate limit: a whole number, 0 or more
// (0: as many as the rate allows per window).
type burstValue int

func (b *burstValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return errors.New("want a whole number, 0 or more")
	}
	*b = burstValue(n)
	return nil
}

func (b *burstValue) String() string { return strconv.Itoa(int(*b)) }
func (b *burstValue) Type() string   { return "int" }

func burstVar(fl *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fl.Var((*burstValue)(p), name, usage)
}

// offDuration is a duration that "off" (or 0) turns off, stored as 0;
// otherwise at least a second.
type offDuration time.Duration

func (d *offDuration) Set(s string) error {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "off") || s == "0" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < time.Second {
		return errors.New("want off, or a duration of at least 1s, such as 24h or 6h30m")
	}
	*d = offDuration(v)
	return nil
}

func (d *offDuration) String() string {
	if *d == 0 {
		return "off"
	}
	return time.Duration(*d).String()
}
func (d *offDuration) Type() string { return "duration" }

func offDurationVar(fl *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fl.Var((*offDuration)(p), name, usage)
}

// countValue is a whole number, 1 or more.
type countValue int

func (n *countValue) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 1 {
		return errors.New("want a whole number, 1 or more")
	}
	*n = countValue(v)
	return nil
}

func (n *countValue) String() string { return strconv.Itoa(int(*n)) }
func (n *countValue) Type() string   { return "int" }

func countVar(fl *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fl.Var((*countValue)(p), name, usage)
}
