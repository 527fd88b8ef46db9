package checks

import (
	"fmt"
	"strings"

	networking "istio.io/api/networking/v1alpha3"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// credentialDiag is what credentialCheck found wrong with the Secret a credentialName names.
type credentialDiag struct {
	// problem completes "…, but " (no Secret there, or one istiod never serves); fix creates
	// the Secret where the proxy reads it.
	problem, fix string
	// unchecked: the Secret's namespace was not read; problem says so, for a warning.
	unchecked bool
}

// credentialCheck looks up the Secret that credentialName cred names for a proxy in namespace
// proxyNs, reading a certificate and key (needCert: a MUTUAL origination, a terminating server) or
// only a CA (a SIMPLE origination, which also takes Secret <name>-cacert). It returns a
// diagnosis when the Secret is missing from the namespaces read or is one istiod never serves
// to the proxy, and otherwise the hop's note ("" when cred names no Secret). When its namespace
// was not read, the note says "not checked" and why, and the diagnosis is marked unchecked (a
// warning, not a failure).
//
// Mirrors istiod pilot/pkg/model/credentials/resource.go ParseResourceName (a credentialName is
// read in the proxy's own namespace), pilot/pkg/xds/sds.go filterAuthorizedResources (never a
// kubernetes:// Secret of another namespace) and generate (no Secret: no resource is sent, and
// the proxy's TLS context never gets its certificate), and pilot/pkg/credentials/kube/secrets.go
// GetCaCert (a CA alone is read from Secret <name>-cacert, else from <name>).
func credentialCheck(snap *snapshot.Snapshot, cred, proxyNs string, needCert bool) (note string, d *credentialDiag) {
	c, ok := rules.CredentialSecret(cred, proxyNs)
	if !ok {
		return "", nil
	}
	if c.CrossNamespace {
		return "", &credentialDiag{
			problem: fmt.Sprintf("credentialName %s names a Secret in namespace %s, and istiod never gives a proxy in %s a Secret of another namespace", cred, c.Namespace, proxyNs),
			fix:     fmt.Sprintf("Put the Secret %s in namespace %s and set credentialName: %s.", c.Name, proxyNs, c.Name),
		}
	}
	state, found := snap.Secret(c.Namespace, c.Name), c.Name
	if state != snapshot.SecretFound && !needCert && snap.Secret(c.Namespace, c.Name+"-cacert") == snapshot.SecretFound {
		state, found = snapshot.SecretFound, c.Name+"-cacert"
	}
	switch state {
	case snapshot.SecretFound:
		return fmt.Sprintf("Secret %s/%s found (by name: whether it holds a valid certificate and key is not checked)", c.Namespace, found), nil
	case snapshot.SecretNotRead:
		why := "the input holds no Secret"
		if snap.SecretsUnread != "" {
			why = snap.SecretsUnread
		}
		return fmt.Sprintf("credential %s not checked (%s): it must be a Secret in namespace %s", c.Name, why, c.Namespace), &credentialDiag{unchecked: true,
			problem: fmt.Sprintf("whether Secret %s is in namespace %s, where the proxy reads it, was not checked: %s", c.Name, c.Namespace, why),
			fix:     fmt.Sprintf("Make sure the Secret %s exists in namespace %s (kubectl get secret %s -n %s): a credential elsewhere is never used.", c.Name, c.Namespace, c.Name, c.Namespace)}
	}
	problem := fmt.Sprintf("there is no Secret %s in namespace %s, where the proxy reads its credentialName", c.Name, c.Namespace)
	var elsewhere []string
	for _, ns := range snap.SecretsNamed(c.Name) {
		if ns != c.Namespace {
			elsewhere = append(elsewhere, ns)
		}
	}
	fix := fmt.Sprintf("Create the Secret %s in namespace %s", c.Name, c.Namespace)
	if len(elsewhere) > 0 {
		problem += fmt.Sprintf(" (a Secret of that name is in namespace %s, which istiod does not read for a proxy in %s)", strings.Join(elsewhere, ", "), c.Namespace)
		fix += fmt.Sprintf(": copy it from namespace %s", elsewhere[0])
	}
	if needCert {
		fix += " (keys tls.crt and tls.key, and ca.crt where the peer's certificate is verified)"
	} else {
		fix += " (key ca.crt), or a Secret " + c.Name + "-cacert there"
	}
	return "", &credentialDiag{problem: problem, fix: fix + "."}
}

// originationNeedsCert: a client tls setting that presents a certificate (MUTUAL).
func originationNeedsCert(t *networking.ClientTLSSettings) bool {
	return t.GetMode() == networking.ClientTLSSettings_MUTUAL
}

// originationCredential is the credentialName a client tls setting makes the proxy read: ""
// when it reads none (SIMPLE with insecureSkipVerify verifies no CA and presents no certificate).
//
// Mirrors istiod pilot/pkg/security/model/authentication.go
// ApplyCustomSDSToClientCommonTLSContext (MUTUAL: the certificate from credentialName; unless
// insecureSkipVerify, the CA from credentialName-cacert).
func originationCredential(t *networking.ClientTLSSettings) string {
	if t.GetMode() == networking.ClientTLSSettings_SIMPLE && t.GetInsecureSkipVerify().GetValue() {
		return ""
	}
	return t.GetCredentialName()
}
