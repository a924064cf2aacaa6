/*
 * ruby.c - the Ruby ecosystem: a *.gemspec (name, summary, executables, as
 * keyword assignments in the text), the Gemfile (gem lines and the ruby
 * directive, line by line), Gemfile.lock, .rspec, Rakefile, config.ru,
 * .rubocop.yml, .ruby-version, Rails' bin/rails and config/application.rb,
 * and executables in exe/ or bin/.
 *
 * A gemspec makes the project a gem (a library; a command-line tool too
 * when it lists executables); Rails makes it a web application with
 * bin/rails test and server as commands; RSpec (in the Gemfile or .rspec)
 * gives bundle exec rspec, else a Rakefile gives bundle exec rake test.
 * Nothing beyond the gemspec and the Gemfile is recorded unless one of the
 * gemspec, the Gemfile or a Rakefile exists.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"rails", "Rails", "web"},        {"sinatra", "Sinatra", "web"},
    {"hanami", "Hanami", "web"},      {"rspec", "RSpec", "test"},
    {"rspec-rails", "RSpec", "test"}, {"minitest", "Minitest", "test"},
    {"sidekiq", "Sidekiq", "tasks"},
};

static void scan_ruby(dx_ctx *d)
{
    mn_buf b = MN_BUF_INIT;
    const char *spec = dx_find_glob(d, "*.gemspec");
    if (spec && dx_load_text(d, spec, &b)) {
        char *n = dx_kwarg(b.ptr, "name"), *s = dx_kwarg(b.ptr, "summary");
        dx_set_name(d, n, s, spec);
        free(n);
        free(s);
        dx_add_kv(d->types, "library (gem)", spec);
        if (strstr(b.ptr, "executables"))
            dx_add_kv(d->types, "command-line tool", "gemspec executables");
        dx_add_cmd(d, CMD_BUILD, 45, "gem build", spec, NULL);
    }
    if (dx_load_text(d, "Gemfile", &b)) {
        json_t *deps = json_array();
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (dx_next_line(&p, end, &line, &n)) {
            while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
            if (n > 6 && !memcmp(line, "ruby ", 5)) {
                mn_buf r = MN_BUF_INIT;
                mn_buf_puts(&r, "Ruby ");
                mn_buf_put(&r, line + 5, n - 5);
                mn_buf_puts(&r, " (Gemfile)");
                char *clean = mn_strdup(r.ptr);
                for (char *c = clean; *c; c++)
                    if (*c == '"' || *c == '\'')
                        memmove(c, c + 1, strlen(c)), c--;
                dx_add_unique(d->runtime, clean);
                free(clean);
                mn_buf_release(&r);
            }
            if (n < 6 || memcmp(line, "gem ", 4))
                continue;
            const char *q = line + 4;
            while (*q == ' ')
                q++;
            if (*q != '"' && *q != '\'')
                continue;
            const char *e = memchr(q + 1, *q, (size_t)(line + n - q - 1));
            if (!e)
                continue;
            char *g = mn_strndup(q + 1, (size_t)(e - q - 1));
            dx_add_unique(deps, g);
            dx_see_dep(d, "rb", g, strlen(g), "Gemfile");
            free(g);
        }
        dx_add_deps(d, "Gemfile", "runtime", deps);
        dx_add_manager(d, "ruby", "Bundler",
                       dx_have(d, "Gemfile.lock") ? "Gemfile.lock" : "Gemfile", "bundle install");
    }
    mn_buf_release(&b);
    bool rails = json_object_get(d->frameworks, "Rails") || dx_have(d, "bin/rails") ||
                 dx_have(d, "config/application.rb");
    bool ruby = spec || dx_have(d, "Gemfile") || dx_have(d, "Rakefile");
    if (!ruby)
        return;
    if (json_object_get(d->frameworks, "RSpec") || dx_have(d, ".rspec"))
        dx_add_cmd(d, CMD_TEST, 55, "bundle exec rspec",
                   dx_have(d, ".rspec") ? ".rspec" : "rspec in the Gemfile", NULL);
    if (rails) {
        dx_add_cmd(d, CMD_TEST, 52, "bin/rails test", "Rails", NULL);
        dx_add_cmd(d, CMD_RUN, 60, "bin/rails server", "Rails", NULL);
        dx_add_kv(d->types, "web application", "Rails");
    } else if (dx_have(d, "Rakefile")) {
        dx_add_cmd(d, CMD_TEST, 48, "bundle exec rake test", "Rakefile", NULL);
    }
    if (dx_have(d, "config.ru") && !rails)
        dx_add_cmd(d, CMD_RUN, 45, "bundle exec rackup", "config.ru", NULL);
    if (dx_have(d, ".rubocop.yml")) {
        dx_add_kv(d->style, "RuboCop", ".rubocop.yml");
        dx_add_cmd(d, CMD_LINT, 60, "bundle exec rubocop", ".rubocop.yml", NULL);
    }
    if (dx_have(d, ".ruby-version")) {
        mn_buf v = MN_BUF_INIT, r = MN_BUF_INIT;
        if (dx_load_text(d, ".ruby-version", &v)) {
            mn_buf_puts(&r, "Ruby ");
            dx_put_oneline(&r, v.ptr, 40);
            mn_buf_puts(&r, " (.ruby-version)");
            dx_add_unique(d->runtime, r.ptr);
        }
        mn_buf_release(&v);
        mn_buf_release(&r);
    }
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if ((dx_starts(p, "exe/") || dx_starts(p, "bin/")) && dx_depth_of(p) == 1 &&
            d->files.items[i].role != MN_ROLE_TEST)
            dx_add_entry(d, p, "executable in exe/ or bin/");
    }
}

const dx_ecosystem dx_ruby = {
    .name = "Ruby",
    .lang = "ruby",
    .deps = "rb",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "*.gemspec",
    .scan = scan_ruby,
};
