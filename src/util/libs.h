/*
 * libs.h - the shared libraries mnemo loads only when a command needs them
 * (libs.c): libcurl (the HTTP embedder), libgit2 (the walk of a checkout,
 * the history, the git ingest, branches and blame), libmicrohttpd (mnemo
 * serve) and libpq (the PostgreSQL store back end, src/store/postgres/;
 * libpq pulls in 24 libraries of its own: OpenSSL, Kerberos, LDAP).
 *
 * Linked into the binary, the three and what they pull in (GnuTLS,
 * Kerberos, LDAP, SSH: 47 libraries in all) cost every process 6 ms of
 * relocations before main, most of what `mnemo hook` spends when a
 * running server answers it. Loaded with dlopen on first use instead,
 * only the commands that use them pay. Each table holds the functions
 * mnemo calls, named without the library's prefix (curl's headers make
 * `curl_easy_setopt` a type-checking macro, so the member could not
 * carry that name).
 */
#ifndef MN_UTIL_LIBS_H
#define MN_UTIL_LIBS_H

#include <curl/curl.h>
#include <git2.h>
#include <libpq-fe.h>
#include <microhttpd.h>

#define MN_CURL_API(X)                                                        \
    X(CURLcode, global_init, (long))                                          \
    X(CURL *, easy_init, (void))                                              \
    X(CURLcode, easy_setopt, (CURL *, CURLoption, ...))                       \
    X(CURLcode, easy_perform, (CURL *))                                       \
    X(CURLcode, easy_getinfo, (CURL *, CURLINFO, ...))                        \
    X(void, easy_reset, (CURL *))                                             \
    X(void, easy_cleanup, (CURL *))                                           \
    X(const char *, easy_strerror, (CURLcode))                                \
    X(struct curl_slist *, slist_append, (struct curl_slist *, const char *)) \
    X(void, slist_free_all, (struct curl_slist *))

#define MN_GIT_API(X)                                                                          \
    X(int, libgit2_init, (void))                                                               \
    X(int, libgit2_shutdown, (void))                                                           \
    X(int, libgit2_opts, (int, ...))                                                           \
    X(const git_error *, error_last, (void))                                                   \
    X(int, repository_open_ext, (git_repository **, const char *, unsigned int, const char *)) \
    X(const char *, repository_workdir, (const git_repository *))                              \
    X(int, repository_is_bare, (const git_repository *))                                       \
    X(int, repository_index, (git_index **, git_repository *))                                 \
    X(void, repository_free, (git_repository *))                                               \
    X(int, index_find, (size_t *, git_index *, const char *))                                  \
    X(int, index_find_prefix, (size_t *, git_index *, const char *))                           \
    X(void, index_free, (git_index *))                                                         \
    X(int, ignore_path_is_ignored, (int *, git_repository *, const char *))                    \
    /* the history (index/history.c) */                                                        \
    X(int, repository_is_shallow, (git_repository *))                                          \
    X(const char *, repository_commondir, (const git_repository *))                            \
    X(int, reference_name_to_id, (git_oid *, git_repository *, const char *))                  \
    X(int, revwalk_new, (git_revwalk **, git_repository *))                                    \
    X(int, revwalk_sorting, (git_revwalk *, unsigned int))                                     \
    X(int, revwalk_push, (git_revwalk *, const git_oid *))                                     \
    X(int, revwalk_hide, (git_revwalk *, const git_oid *))                                     \
    X(int, revwalk_next, (git_oid *, git_revwalk *))                                           \
    X(void, revwalk_free, (git_revwalk *))                                                     \
    X(int, commit_lookup, (git_commit **, git_repository *, const git_oid *))                  \
    X(void, commit_free, (git_commit *))                                                       \
    X(unsigned int, commit_parentcount, (const git_commit *))                                  \
    X(int, commit_parent, (git_commit **, const git_commit *, unsigned int))                   \
    X(int, commit_tree, (git_tree **, const git_commit *))                                     \
    X(const char *, commit_summary, (git_commit *))                                            \
    X(git_time_t, commit_time, (const git_commit *))                                           \
    X(void, tree_free, (git_tree *))                                                           \
    X(int, diff_tree_to_tree,                                                                  \
      (git_diff **, git_repository *, git_tree *, git_tree *, const git_diff_options *))       \
    X(size_t, diff_num_deltas, (const git_diff *))                                             \
    X(const git_diff_delta *, diff_get_delta, (const git_diff *, size_t))                      \
    X(void, diff_free, (git_diff *))                                                           \
    X(int, diff_find_similar, (git_diff *, const git_diff_find_options *))                     \
    X(int, oid_fromstr, (git_oid *, const char *))                                             \
    X(int, graph_descendant_of, (git_repository *, const git_oid *, const git_oid *))          \
    X(int, oid_fmt, (char *, const git_oid *))                                                 \
    /* the git ingest (ingest/git.c), branches and blame (retrieve/branch.c, why.c) */         \
    X(const char *, commit_message, (const git_commit *))                                      \
    X(const git_signature *, commit_author, (const git_commit *))                              \
    X(const git_oid *, commit_parent_id, (const git_commit *, unsigned int))                   \
    X(int, diff_options_init, (git_diff_options *, unsigned int))                              \
    X(int, patch_from_diff, (git_patch **, git_diff *, size_t))                                \
    X(size_t, patch_num_hunks, (const git_patch *))                                            \
    X(int, patch_get_hunk, (const git_diff_hunk **, size_t *, git_patch *, size_t))            \
    X(int, patch_get_line_in_hunk, (const git_diff_line **, git_patch *, size_t, size_t))      \
    X(void, patch_free, (git_patch *))                                                         \
    X(int, blob_lookup, (git_blob **, git_repository *, const git_oid *))                      \
    X(const void *, blob_rawcontent, (const git_blob *))                                       \
    X(git_object_size_t, blob_rawsize, (const git_blob *))                                     \
    X(void, blob_free, (git_blob *))                                                           \
    X(int, repository_odb, (git_odb **, git_repository *))                                     \
    X(int, odb_read_header, (size_t *, git_object_t *, git_odb *, const git_oid *))            \
    X(void, odb_free, (git_odb *))                                                             \
    X(int, revparse_single, (git_object **, git_repository *, const char *))                   \
    X(int, object_peel, (git_object **, const git_object *, git_object_t))                     \
    X(const git_oid *, object_id, (const git_object *))                                        \
    X(void, object_free, (git_object *))                                                       \
    X(int, repository_head, (git_reference **, git_repository *))                              \
    X(const char *, reference_shorthand, (const git_reference *))                              \
    X(int, reference_is_branch, (const git_reference *))                                       \
    X(void, reference_free, (git_reference *))                                                 \
    X(int, tree_entry_bypath, (git_tree_entry **, const git_tree *, const char *))             \
    X(const git_oid *, tree_entry_id, (const git_tree_entry *))                                \
    X(void, tree_entry_free, (git_tree_entry *))                                               \
    X(int, blame_options_init, (git_blame_options *, unsigned int))                            \
    X(int, blame_file, (git_blame **, git_repository *, const char *, git_blame_options *))    \
    X(uint32_t, blame_get_hunk_count, (git_blame *))                                           \
    X(const git_blame_hunk *, blame_get_hunk_byindex, (git_blame *, uint32_t))                 \
    X(void, blame_free, (git_blame *))                                                         \
    /* the server's own clone of a project's repository (src/http/sync.c) */                   \
    X(int, clone, (git_repository **, const char *, const char *, const git_clone_options *))  \
    X(int, clone_options_init, (git_clone_options *, unsigned int))                            \
    X(int, remote_create_with_opts,                                                            \
      (git_remote **, const char *, const git_remote_create_options *))                        \
    X(int, remote_create_options_init, (git_remote_create_options *, unsigned int))            \
    X(int, remote_fetch,                                                                       \
      (git_remote *, const git_strarray *, const git_fetch_options *, const char *))           \
    X(void, remote_free, (git_remote *))                                                       \
    X(int, fetch_options_init, (git_fetch_options *, unsigned int))                            \
    X(int, reset, (git_repository *, const git_object *, git_reset_t, const git_checkout_options *))

#define MN_MHD_API(X)                                                                            \
    X(struct MHD_Daemon *, start_daemon,                                                         \
      (unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *, MHD_AccessHandlerCallback,      \
       void *, ...))                                                                             \
    X(void, stop_daemon, (struct MHD_Daemon *))                                                  \
    X(const char *, lookup_connection_value,                                                     \
      (struct MHD_Connection *, enum MHD_ValueKind, const char *))                               \
    X(struct MHD_Response *, create_response_from_buffer,                                        \
      (size_t, void *, enum MHD_ResponseMemoryMode))                                             \
    X(enum MHD_Result, add_response_header, (struct MHD_Response *, const char *, const char *)) \
    X(enum MHD_Result, queue_response,                                                           \
      (struct MHD_Connection *, unsigned int, struct MHD_Response *))                            \
    X(void, destroy_response, (struct MHD_Response *))                                           \
    X(const union MHD_ConnectionInfo *, get_connection_info,                                     \
      (struct MHD_Connection *, enum MHD_ConnectionInfoType, ...))                               \
    X(enum MHD_Result, is_feature_supported, (enum MHD_FEATURE))

/* libpq: what src/store/postgres/ calls, without the "PQ" prefix */
#define MN_PQ_API(X)                                                                            \
    X(PGconn *, connectdb, (const char *))                                                      \
    X(ConnStatusType, status, (const PGconn *))                                                 \
    X(char *, errorMessage, (const PGconn *))                                                   \
    X(void, finish, (PGconn *))                                                                 \
    X(PGresult *, exec, (PGconn *, const char *))                                               \
    X(PGresult *, execParams,                                                                   \
      (PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, \
       int))                                                                                    \
    X(PGresult *, prepare, (PGconn *, const char *, const char *, int, const Oid *))            \
    X(PGresult *, execPrepared,                                                                 \
      (PGconn *, const char *, int, const char *const *, const int *, const int *, int))        \
    X(ExecStatusType, resultStatus, (const PGresult *))                                         \
    X(char *, resultErrorField, (const PGresult *, int))                                        \
    X(char *, resultErrorMessage, (const PGresult *))                                           \
    X(void, clear, (PGresult *))                                                                \
    X(int, ntuples, (const PGresult *))                                                         \
    X(char *, getvalue, (const PGresult *, int, int))                                           \
    X(int, getlength, (const PGresult *, int, int))                                             \
    X(int, getisnull, (const PGresult *, int, int))                                             \
    X(char *, cmdTuples, (PGresult *))                                                          \
    X(PQnoticeProcessor, setNoticeProcessor, (PGconn *, PQnoticeProcessor, void *))             \
    X(PGTransactionStatusType, transactionStatus, (const PGconn *))                             \
    X(int, serverVersion, (const PGconn *))

#define MN_LIBS_MEMBER(ret, name, args) ret(*name) args;
typedef struct {
    MN_CURL_API(MN_LIBS_MEMBER)
} mn_curl_api;
typedef struct {
    MN_GIT_API(MN_LIBS_MEMBER)
} mn_git_api;
typedef struct {
    MN_MHD_API(MN_LIBS_MEMBER)
} mn_mhd_api;
typedef struct {
    MN_PQ_API(MN_LIBS_MEMBER)
} mn_pq_api;
#undef MN_LIBS_MEMBER

/*
 * The library's functions, loaded on the first call (thread-safe); NULL
 * with the error set ("cannot load libcurl.so.4: ...") when it cannot be.
 */
const mn_curl_api *mn_libs_curl(void);
const mn_git_api *mn_libs_git(void);
const mn_mhd_api *mn_libs_mhd(void);
const mn_pq_api *mn_libs_pq(void);

#endif
