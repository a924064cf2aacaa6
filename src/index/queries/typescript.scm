; typescript.scm - mnemo's own extraction patterns for TypeScript and TSX,
; run with the grammar's tags.scm (typescript's, then javascript's). Capture
; names: src/index/parse.c.

; definitions tags.scm leaves out
(class_declaration name: (type_identifier) @name) @definition.class
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module

; import x from 'm'; import type {T} from 'm'; export ... from 'm'
(import_statement source: (string) @import)
(export_statement source: (string) @import)

; import fs = require('fs'), require('m'), import('m')
(import_require_clause source: (string) @import)
((call_expression
   function: (identifier) @_fn
   arguments: (arguments . (string) @import))
 (#eq? @_fn "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string) @import))

; class A extends B implements I, J; interface I extends J, K
(extends_clause value: (_) @inherit)
(implements_clause (_) @inherit)
(extends_type_clause type: (_) @inherit)
