; bash.scm - mnemo's extraction patterns for shell scripts (the grammar ships
; no tags.scm). Capture names: src/index/parse.c.

(function_definition name: (word) @name) @definition.function

; every command is a call; parse.c drops common builtins
(command name: (command_name (word) @name)) @reference.call

; source x.sh / . x.sh
((command
   name: (command_name (word) @_c)
   .
   argument: [(word) (string) (raw_string) (concatenation)] @import)
 (#any-of? @_c "source" "."))
