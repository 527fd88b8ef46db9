package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// specTypeProblem checks the JSON of an Istio object's spec against the types of its protobuf
// message the way the API server's schema for the CRD does, and says where it differs first:
// "invalid value for field F: ... (spec.a[0].f)", "" when nothing does. protojson accepts more
// than the schema (a number written as a string, "443", or an enum as its number), so an object
// `kubectl apply` refuses would otherwise be read as valid; and it refuses other slips (a string
// for a list) with a message that names neither the field nor where it is.
//
// 32-bit integers must be JSON numbers, enums strings, strings and bools their own JSON types,
// repeated fields lists, maps and messages objects; 64-bit integers may be strings (protojson's
// canonical form), and google.protobuf.Struct, Value, ListValue and Any are not checked.
func specTypeProblem(spec []byte, md protoreflect.MessageDescriptor) string {
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return ""
	}
	return messageTypeProblem(v, md, "spec")
}

func messageTypeProblem(v any, md protoreflect.MessageDescriptor, at string) string {
	switch md.FullName() {
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Any":
		return ""
	case "google.protobuf.Duration", "google.protobuf.Timestamp", "google.protobuf.FieldMask":
		if _, ok := v.(string); !ok && v != nil {
			return typeProblem(at, v, "a string (such as \"5s\")")
		}
		return ""
	}
	if w := md.Fields().ByName("value"); w != nil && md.ParentFile().Package() == "google.protobuf" && md.Fields().Len() == 1 {
		return scalarTypeProblem(v, w, at) // a wrapper (UInt32Value, BoolValue, ...): its value
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return ""
		}
		return typeProblem(at, v, "an object")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // (the first problem in a stable order)
	for _, k := range keys {
		x := obj[k]
		fd := md.Fields().ByJSONName(k)
		if fd == nil {
			fd = md.Fields().ByName(protoreflect.Name(k))
		}
		if fd == nil || x == nil {
			continue // unknown fields are strictDecode's; null is unset
		}
		p := at + "." + k
		switch {
		case fd.IsList():
			l, ok := x.([]any)
			if !ok {
				return typeProblem(p, x, "a list")
			}
			for i, e := range l {
				if s := valueTypeProblem(e, fd, fmt.Sprintf("%s[%d]", p, i)); s != "" {
					return s
				}
			}
		case fd.IsMap():
			m, ok := x.(map[string]any)
			if !ok {
				return typeProblem(p, x, "an object")
			}
			mks := make([]string, 0, len(m))
			for mk := range m {
				mks = append(mks, mk)
			}
			sort.Strings(mks)
			for _, mk := range mks {
				if s := valueTypeProblem(m[mk], fd.MapValue(), p+"."+mk); s != "" {
					return s
				}
			}
		default:
			if s := valueTypeProblem(x, fd, p); s != "" {
				return s
			}
		}
	}
	return ""
}

func valueTypeProblem(v any, fd protoreflect.FieldDescriptor, at string) string {
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		return messageTypeProblem(v, fd.Message(), at)
	}
	return scalarTypeProblem(v, fd, at)
}

func scalarTypeProblem(v any, fd protoreflect.FieldDescriptor, at string) string {
	if v == nil {
		return ""
	}
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if n, ok := v.(json.Number); !ok {
			return typeProblem(at, v, "an integer")
		} else if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			return typeProblem(at, v, "an integer")
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		switch v.(type) {
		case json.Number, string:
		default:
			return typeProblem(at, v, "an integer")
		}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if _, ok := v.(json.Number); !ok {
			return typeProblem(at, v, "a number")
		}
	case protoreflect.BoolKind:
		if _, ok := v.(bool); !ok {
			return typeProblem(at, v, "true or false")
		}
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.EnumKind:
		if _, ok := v.(string); !ok {
			return typeProblem(at, v, "a string")
		}
	}
	return ""
}

// typeProblem: "invalid value for field F: WHAT where the schema wants WANT (AT)", with F the
// last name of the path at (for the line lookup).
func typeProblem(at string, v any, want string) string {
	what := "a value"
	switch x := v.(type) {
	case string:
		what = fmt.Sprintf("the string %q", x)
	case json.Number:
		what = "the number " + string(x)
	case bool:
		what = fmt.Sprintf("%t", x)
	case []any:
		what = "a list"
	case map[string]any:
		what = "an object"
	}
	name := at[strings.LastIndex(at, ".")+1:]
	name, _, _ = strings.Cut(name, "[")
	return fmt.Sprintf("invalid value for field %s: %s where the API server's schema wants %s (%s)", name, what, want, at)
}
