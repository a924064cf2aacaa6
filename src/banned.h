/*
 * banned.h - functions that must not be used in mnemo.
 *
 * Each of these either writes without a bound (strcpy, sprintf, strcat),
 * hides errors (atoi and friends return 0 on garbage), or keeps hidden
 * static state (strtok, gmtime). Use mn_buf, snprintf, mn_parse_int64,
 * strtok_r and gmtime_r instead. The macros turn a use into a compile error
 * that names the reason. This header is included last by src/common.h so
 * that the system headers have already declared the real functions.
 */
#ifndef MN_BANNED_H
#define MN_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_mnemo

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atoll
#define atoll(x) BANNED(atoll)
#undef atof
#define atof(x) BANNED(atof)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)
#undef ctime
#define ctime(x) BANNED(ctime)
#undef asctime
#define asctime(x) BANNED(asctime)

#endif
