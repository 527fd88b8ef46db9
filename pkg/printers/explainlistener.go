package printers

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// ExplainListener renders an explain-listener report the way `istioctl proxy-config` prints
// listeners (ADDRESSES PORT MATCH DESTINATION), routes (NAME VHOST NAME DOMAINS MATCH VIRTUAL
// SERVICE) and clusters (SERVICE FQDN PORT SUBSET DIRECTION TYPE DESTINATION RULE), then the path
// of each call in plain words and the findings; or JSON/YAML (schema
// kubectl-egress.io/explain-listener/v1).
func ExplainListener(w io.Writer, r *checks.ListenerReport, format string) error {
	if done, err := structured(w, r, format); done {
		return err
	}
	out := w
	var buf bytes.Buffer
	w = &buf
	fmt.Fprint(w, explainListenerShort(r))
	if style.Brief {
		return emit(out, buf.Bytes())
	}
	fmt.Fprintln(w)
	p := r.Proxy
	who := p.Type + " " + p.Namespace
	if p.Workload != "" {
		who = p.Type + " " + p.Workload
	}
	fmt.Fprintf(w, "Proxy: %s", who)
	if p.Type == "SIDECAR" {
		fmt.Fprintf(w, " (Sidecar %s, outboundTrafficPolicy %s from %s)", p.Sidecar, p.OutboundTrafficPolicy, p.PolicyFrom)
	}
	if p.Revision != "" {
		fmt.Fprintf(w, ", revision %s", p.Revision)
	}
	fmt.Fprintf(w, "\nSource: %s\n\n", r.Source)

	fmt.Fprintln(w, "LISTENERS")
	rows := listenerRows(r.Listeners, true)
	if len(rows) == 0 && p.Type == "ZTUNNEL" {
		fmt.Fprintln(w, "(an ambient client: no sidecar, so no listener; ztunnel carries its calls)")
	} else if len(rows) == 0 && p.Type == "ROUTER" {
		fmt.Fprintf(w, "(no listener on port %d: the gateway refuses connections to it)\n", r.Port)
	} else if len(rows) == 0 {
		fmt.Fprintf(w, "(no listener on port %d: connections go to virtualOutbound)\n", r.Port)
	} else if err := Table(w, []string{"ADDRESSES", "PORT", "MATCH", "DESTINATION", "FROM"}, rows); err != nil {
		return err
	}

	if r.ActualSource != "" {
		fmt.Fprintf(w, "\nACTUAL LISTENERS (%s)\n", r.ActualSource)
		rows = nil
		for _, l := range r.Actual {
			addr, _, _ := strings.Cut(l.Name, "_")
			for _, c := range l.Chains {
				m := c.Match
				if c.Default {
					m += " (default)"
				}
				d := c.Destination
				if len(c.Weighted) > 0 {
					d = "Clusters: " + strings.Join(c.Weighted, ",") + " (weighted)"
				}
				rows = append(rows, []string{addr, fmt.Sprint(l.Port), m, d, orDash(c.Origin)})
			}
		}
		if len(rows) == 0 {
			fmt.Fprintf(w, "(none on port %d)\n", r.Port)
		} else if err := Table(w, []string{"ADDRESSES", "PORT", "MATCH", "DESTINATION", "CHAIN NAME"}, rows); err != nil {
			return err
		}
	}

	if len(r.Routes) > 0 {
		fmt.Fprintln(w, "\nROUTES")
		rows = routeRows(r.Routes, true)
		if err := Table(w, []string{"NAME", "VHOST NAME", "DOMAINS", "MATCH", "VIRTUAL SERVICE", "CLUSTER"}, rows); err != nil {
			return err
		}
	}

	if len(r.Clusters) > 0 {
		fmt.Fprintln(w, "\nCLUSTERS")
		rows = nil
		for _, c := range r.Clusters {
			state := "PRESENT"
			if !c.Present {
				state = "ABSENT: " + c.Reason
			}
			row := []string{c.FQDN, fmt.Sprint(c.Port), orDash(c.Subset), c.Direction, orDash(c.Type), orDash(istioctlRef(c.DestinationRule)), state}
			if r.ActualSource != "" {
				row = append(row, strings.ToUpper(orDash(c.Actual)))
			}
			rows = append(rows, row)
		}
		headers := []string{"SERVICE FQDN", "PORT", "SUBSET", "DIRECTION", "TYPE", "DESTINATION RULE", "CDS"}
		if r.ActualSource != "" {
			headers = []string{"SERVICE FQDN", "PORT", "SUBSET", "DIRECTION", "TYPE", "DESTINATION RULE", "PREDICTED", "ACTUAL"}
		}
		if err := Table(w, headers, rows); err != nil {
			return err
		}
	}

	if len(r.Bindings) > 0 {
		fmt.Fprintln(w, "\nVIRTUAL SERVICES ON THESE SERVERS")
		rows = nil
		for _, b := range r.Bindings {
			var hs []string
			for _, h := range append(append([]string{}, b.Hosts...), b.SNIHosts...) {
				if !slices.Contains(hs, h) {
					hs = append(hs, h)
				}
			}
			hosts := strings.Join(hs, ",")
			rows = append(rows, []string{fmt.Sprintf("%s#%d %d/%s", b.Gateway, b.Server, b.Port, b.Protocol), b.VirtualService, b.RouteType, b.Result, orDash(hosts), orDash(strings.Join(b.Destinations, ","))})
		}
		if err := Table(w, []string{"SERVER", "VIRTUAL SERVICE", "ROUTE TYPE", "RESULT", "HOSTS", "DESTINATIONS"}, rows); err != nil {
			return err
		}
	}

	for _, c := range r.Calls {
		fmt.Fprintf(w, "\n%s call to %s:%d", strings.ToUpper(c.Kind), r.Host, r.Port)
		if c.Address != "" {
			fmt.Fprintf(w, " (address %s)", c.Address)
		}
		fmt.Fprintln(w, ":")
		for i, s := range c.Explanation {
			fmt.Fprintf(w, "  %d. %s\n", i+1, s)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "\n%s [%s] %s%s\n", f.Level, f.Code, resourcePrefix(f.Resource), f.Message)
		writeWhy(w, f.Code)
		writeFix(w, f.Fix)
	}
	return emit(out, buf.Bytes())
}

// resourcePrefix is "<resource>: " before a finding's message, "" for a finding about no one
// resource (a verdict that could not be given).
func resourcePrefix(resource string) string {
	if resource == "" {
		return ""
	}
	return resource + ": "
}
