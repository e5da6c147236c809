/* option_ID, the long name of each OPT row of a workload folder's options.def (every part), for
 * the names of its option groups (workload.h): a name is written once, in its row. A folder's
 * file includes this after #define WORKLOAD_OPTIONS_FILE "workload/NAME/options.def"; a name
 * it does not use fails the build (-Wunused-const-variable), as an option no group takes
 * would be refused to every workload. No include guard: each folder's file its own. */
#define WORKLOAD_OPTIONS_INIT
#define WORKLOAD_OPTIONS_RUN
#define WORKLOAD_OPTIONS_COMMANDS
#define OPT(id, name, ...) static const char option_##id[] = name;
#define USE(...)
#define ALIAS(...)
#include WORKLOAD_OPTIONS_FILE
#undef OPT
#undef USE
#undef ALIAS
#undef WORKLOAD_OPTIONS_INIT
#undef WORKLOAD_OPTIONS_RUN
#undef WORKLOAD_OPTIONS_COMMANDS
#undef WORKLOAD_OPTIONS_FILE
