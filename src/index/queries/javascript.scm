; javascript.scm - mnemo's own extraction patterns for JavaScript (JSX
; included), run with the grammar's tags.scm (capture names: src/index/parse.c).

; import x from 'm'; import 'm'; export ... from 'm'
(import_statement source: (string) @import)
(export_statement source: (string) @import)

; require('m') and import('m')
((call_expression
   function: (identifier) @_fn
   arguments: (arguments . (string) @import))
 (#eq? @_fn "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string) @import))

; class A extends B / extends ns.B
(class_heritage [(identifier) (member_expression)] @inherit)
