; ruby.scm - mnemo's own extraction patterns for Ruby, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; require 'x' / load 'x'; require_relative 'x' (made "./x": relative to the file)
((call
   method: (identifier) @_m
   arguments: (argument_list . (string) @import))
 (#any-of? @_m "require" "load"))
((call
   method: (identifier) @_m
   arguments: (argument_list . (string) @import.relative))
 (#eq? @_m "require_relative"))

; class A < B; include / extend / prepend M
(superclass (_) @inherit)
((call
   method: (identifier) @_m
   arguments: (argument_list [(constant) (scope_resolution)] @inherit))
 (#any-of? @_m "include" "extend" "prepend"))
