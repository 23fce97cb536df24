// Package conventions holds tests of rules that span the whole source tree
// rather than one package, such as what comments may refer to. It has no
// code of its own and nothing imports it.
package conventions
