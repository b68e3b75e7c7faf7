package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

// healthcheckPath is the server's probe: 200 while the database answers and
// takes writes, 503 otherwise.
const healthcheckPath = "/healthz"

func newHealthcheckCmd(c *cli) *cobra.Command {
	var (
		addr    string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "healthcheck [--addr ADDR]",
		Short: "Ask a running server whether it is healthy: exit 0 if so, 1 if not",
		Long: `healthcheck asks the server listening on ADDR for GET ` + healthcheckPath + ` and exits 0 when it
answers 200 (the service and its database answer and take writes), 1 otherwise (503, no answer,
or no answer within --timeout). It reads FINANCE_ADDR as serve does, so in the container image,
or beside serve's environment file, it needs no flag. A server listening on every address
(0.0.0.0:8080 or [::]:8080) is asked on the loopback address.

It is the container image's health check: the image has no shell and no curl.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, err := healthcheckURL(addr)
			if err != nil {
				return err
			}
			if err := probe(url, timeout); err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, "healthy:", url)
			return nil
		},
	}
	// The same flag name as serve's, so FINANCE_ADDR sets both.
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "the server's listen address")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "longest wait for the answer")
	bindEnv(cmd.Flags())
	return cmd
}

// healthcheckURL is the probe's URL on the server listening on addr. An
// unspecified host (every address) is reached on loopback.
func healthcheckURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: want HOST:PORT, such as 127.0.0.1:8080", addr)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + healthcheckPath, nil
}

// probe GETs url and wants 200. It goes to the server directly: a proxy
// named in HTTP_PROXY would answer for the server, not about it.
func probe(url string, timeout time.Duration) error {
	if timeout <= 0 {
		return errors.New("--timeout: want a duration above 0, such as 5s")
	}
	client := &http.Client{
		Timeout:   timeout,
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		// A redirect means something else answers on this port.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: %s answered %s", url, resp.Status)
	}
	return nil
}
