/*
 * mnemo/mnemo.h - everything a front end of mnemo needs.
 */
#ifndef MNEMO_H
#define MNEMO_H

#include "mnemo/errors.h"
#include "mnemo/api.h"
#include "mnemo/format.h"

#ifndef MNEMO_VERSION
#define MNEMO_VERSION "0.1.0"
#endif

#endif
