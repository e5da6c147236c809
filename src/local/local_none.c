/* Where pgarena cannot start a scratch server (Windows): every entry refuses with one line,
 * which the command line reports with exit 2 before anything runs. */
#ifdef _WIN32

#include "local/local.h"

int local_available(struct err *e)
{
    return err_set(e, ERR_INPUT,
                   "--local and `pgarena local` are not available on Windows (pgarena cannot "
                   "start a scratch server there): give CONN");
}

int local_start(struct local_server *srv, const char *dir_or_null, struct err *e)
{
    (void)srv;
    (void)dir_or_null;
    return local_available(e);
}

int local_start_preload(struct local_server *srv, const char *dir_or_null, const char *preload,
                        struct err *e)
{
    (void)preload;
    return local_start(srv, dir_or_null, e);
}

int local_start_bin(struct local_server *srv, const char *dir_or_null, const char *bin,
                    const char *preload, struct err *e)
{
    (void)bin;
    (void)preload;
    return local_start(srv, dir_or_null, e);
}

int local_create_extension(const struct local_server *srv, const char *name, struct err *e)
{
    (void)srv;
    (void)name;
    return local_available(e);
}

int local_stop(struct local_server *srv, struct err *e)
{
    (void)srv;
    return local_available(e);
}

int local_restart(struct local_server *srv, struct err *e)
{
    (void)srv;
    return local_available(e);
}

int local_attach(struct local_server *srv, const char *dir, struct err *e)
{
    (void)srv;
    (void)dir;
    return local_available(e);
}

void local_emergency_cleanup(void) {}

#endif
