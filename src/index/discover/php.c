/*
 * php.c - the PHP ecosystem: composer.json (name, description, type,
 * require and require-dev, scripts, bin), composer.lock, phpunit.xml,
 * Laravel's artisan, public/index.php, and the configuration of
 * PHP_CodeSniffer, PHP CS Fixer, PHPStan and Psalm.
 *
 * Composer scripts are command candidates the way npm scripts are
 * (dx_node_scripts, run as "composer <script>"); require.php is the runtime
 * and PHP extensions (ext-*) are not dependencies. Laravel or Symfony make
 * the project a web application, else composer.json's type says library
 * or application, and bin a command-line tool.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"laravel/framework", "Laravel", "web"},
    {"symfony/framework-bundle", "Symfony", "web"},
    {"slim/slim", "Slim", "web"},
    {"cakephp/cakephp", "CakePHP", "web"},
    {"phpunit/phpunit", "PHPUnit", "test"},
    {"pestphp/pest", "Pest", "test"},
};

static void scan_php(dx_ctx *d)
{
    json_t *c = dx_load(d, "composer.json", FMT_JSON, true);
    if (!c)
        return;
    dx_set_name(d, dx_jstr(c, "name"), dx_jstr(c, "description"), "composer.json");
    dx_add_manager(d, "php", "Composer",
                   dx_have(d, "composer.lock") ? "composer.lock" : "composer.json",
                   "composer install");
    json_t *req = dx_jget(c, "require", NULL);
    if (json_is_object(req)) {
        json_t *names = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(req, k, v)
        {
            if (!strcmp(k, "php") || dx_starts(k, "ext-"))
                continue;
            dx_add_unique(names, k);
            dx_see_dep(d, "php", k, strlen(k), "composer.json require");
        }
        dx_add_deps(d, "composer.json", "runtime", names);
        if (dx_jstr(req, "php")) {
            mn_buf r = MN_BUF_INIT;
            mn_buf_printf(&r, "PHP %s (composer.json require.php)", dx_jstr(req, "php"));
            dx_add_unique(d->runtime, r.ptr);
            mn_buf_release(&r);
        }
    }
    d->dev = true;
    if (json_is_object(dx_jget(c, "require-dev", NULL)))
        dx_add_deps(d, "composer.json", "development",
                    dx_keys_as_deps(d, "php", dx_jget(c, "require-dev", NULL),
                                    "composer.json require-dev", NULL));
    d->dev = false;
    dx_node_scripts(d, dx_jget(c, "scripts", NULL), "composer", "composer.json");
    if (dx_have(d, "phpunit.xml") || dx_have(d, "phpunit.xml.dist") ||
        json_object_get(d->frameworks, "PHPUnit"))
        dx_add_cmd(d, CMD_TEST, 60, "vendor/bin/phpunit",
                   dx_have(d, "phpunit.xml")        ? "phpunit.xml"
                   : dx_have(d, "phpunit.xml.dist") ? "phpunit.xml.dist"
                                                    : "phpunit/phpunit in composer.json",
                   NULL);
    if (dx_have(d, "artisan")) {
        dx_add_cmd(d, CMD_RUN, 60, "php artisan serve", "artisan (Laravel)", NULL);
        dx_add_cmd(d, CMD_TEST, 55, "php artisan test", "artisan (Laravel)", NULL);
        dx_add_entry(d, "artisan (Laravel console)", "artisan");
    }
    if (dx_have(d, "public/index.php"))
        dx_add_entry(d, "public/index.php (web front controller)", "public/index.php");
    static const char *const tools[][3] = {
        {"phpcs.xml", "PHP_CodeSniffer", "vendor/bin/phpcs"},
        {"phpcs.xml.dist", "PHP_CodeSniffer", "vendor/bin/phpcs"},
        {".php-cs-fixer.php", "PHP CS Fixer", NULL},
        {".php-cs-fixer.dist.php", "PHP CS Fixer", NULL},
        {"phpstan.neon", "PHPStan", "vendor/bin/phpstan analyse"},
        {"phpstan.neon.dist", "PHPStan", "vendor/bin/phpstan analyse"},
        {"psalm.xml", "Psalm", "vendor/bin/psalm"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(tools); i++)
        if (dx_have(d, tools[i][0])) {
            dx_add_kv(d->style, tools[i][1], tools[i][0]);
            if (tools[i][2])
                dx_add_cmd(d, CMD_LINT, 55, tools[i][2], tools[i][0], NULL);
        }
    const char *type = dx_jstr(c, "type");
    if (json_object_get(d->frameworks, "Laravel") || json_object_get(d->frameworks, "Symfony"))
        dx_add_kv(d->types, "web application", "Laravel/Symfony in composer.json");
    else if (type && !strcmp(type, "library"))
        dx_add_kv(d->types, "library", "composer.json type library");
    else if (type && !strcmp(type, "project"))
        dx_add_kv(d->types, "application", "composer.json type project");
    json_t *bin = dx_jget(c, "bin", NULL);
    size_t i;
    json_t *v;
    json_array_foreach(bin, i, v) if (json_is_string(v))
    {
        dx_add_entry(d, json_string_value(v), "composer.json bin");
        dx_add_kv(d->types, "command-line tool", "composer.json bin");
    }
    json_decref(c);
}

/* A package of a monorepo: its composer.json (name, scripts, require). */
static void php_package(dx_ctx *d, json_t *pkg, const char *manifest)
{
    dx_package_json(d, pkg, manifest, "require", "php");
}

const dx_ecosystem dx_php = {
    .name = "PHP",
    .lang = "php",
    .deps = "php",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "composer.json",
    .scan = scan_php,
    .package = php_package,
};
