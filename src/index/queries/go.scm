; go.scm - mnemo's own extraction patterns for Go, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; import "fmt"; import ( x "a/b" )
(import_spec path: (_) @import)

; type A = B; package-level constants
(type_declaration (type_alias name: (type_identifier) @name) @definition.type)
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))

; embedding: a struct's anonymous fields, an interface's embedded interfaces
(field_declaration_list (field_declaration !name type: (_) @inherit))
(interface_type (type_elem [(type_identifier) (qualified_type)] @inherit))
