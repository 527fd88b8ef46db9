package rules

import "strings"

// Credential is the Secret a proxy's SDS request for a credentialName reads.
type Credential struct {
	// Namespace and Name of the Secret.
	Namespace, Name string
	// CrossNamespace: the name picks a namespace other than the proxy's (kubernetes://ns/name),
	// which istiod never serves to it.
	CrossNamespace bool
}

// CredentialSecret returns the Secret a proxy in namespace proxyNs reads for credentialName cred;
// ok is false when cred names no Secret (empty, configmap://, builtin://, invalid://).
//
// Mirrors istiod pilot/pkg/model/credentials/resource.go ToResourceName (a bare name is
// kubernetes://name) and ParseResourceName (kubernetes://name is read in the proxy's namespace,
// kubernetes://ns/name in ns; kubernetes-gateway://ns/name, the Gateway API's form, in ns), and
// pilot/pkg/xds/sds.go filterAuthorizedResources (a kubernetes:// Secret in another namespace than
// the proxy's is never served: "unverified cross namespace").
func CredentialSecret(cred, proxyNs string) (c Credential, ok bool) {
	switch {
	case cred == "", strings.HasPrefix(cred, "configmap://"), strings.HasPrefix(cred, "builtin://"), strings.HasPrefix(cred, "invalid://"):
		return Credential{}, false
	case strings.HasPrefix(cred, "kubernetes-gateway://"):
		ns, name, found := strings.Cut(strings.TrimPrefix(cred, "kubernetes-gateway://"), "/")
		if !found || ns == "" || name == "" {
			return Credential{}, false
		}
		return Credential{Namespace: ns, Name: name}, true
	}
	rest := strings.TrimPrefix(cred, "kubernetes://")
	ns, name, found := strings.Cut(rest, "/")
	if !found {
		return Credential{Namespace: proxyNs, Name: rest}, rest != ""
	}
	if name == "" {
		return Credential{}, false
	}
	return Credential{Namespace: ns, Name: name, CrossNamespace: ns != proxyNs}, true
}

// SecretCredential is the Secret name credentialName cred names for the proxy reading it ("" when
// it names none): what a live load looks for.
func SecretCredential(cred string) string {
	c, ok := CredentialSecret(cred, "")
	if !ok {
		return ""
	}
	return c.Name
}
