/* SPDX-License-Identifier: GPL-2.0 */
/* Benchmarks of benchs/bench_ip_cookie.c, registered in bench.c. */
#ifndef __BENCH_IP_COOKIE_H
#define __BENCH_IP_COOKIE_H

extern const struct argp bench_ip_cookie_argp;

extern const struct bench bench_ipc_kmulti_empty;
extern const struct bench bench_ipc_kmulti_cookie;
extern const struct bench bench_ipc_kmulti_cookie_array;
extern const struct bench bench_ipc_kmulti_hash;
extern const struct bench bench_ipc_kmulti_ipc;
extern const struct bench bench_ipc_kmulti_ipc_link;
extern const struct bench bench_ipc_kmulti_kfunc;
extern const struct bench bench_ipc_kmulti_funcip;
extern const struct bench bench_ipc_kmulti_funcip_link;
extern const struct bench bench_ipc_fentry_empty;
extern const struct bench bench_ipc_fentry_cookie;
extern const struct bench bench_ipc_fentry_hash;
extern const struct bench bench_ipc_fentry_ipc;
extern const struct bench bench_ipc_fentry_cookie_array;
extern const struct bench bench_ipc_fentry_wide_array;
extern const struct bench bench_ipc_fentry_wide_ipc;
extern const struct bench bench_ipc_fentry_kfunc;
extern const struct bench bench_ipc_fentry_funcip;
extern const struct bench bench_ipc_umulti_empty;
extern const struct bench bench_ipc_umulti_cookie;
extern const struct bench bench_ipc_umulti_cookie_array;
extern const struct bench bench_ipc_umulti_ipc;
extern const struct bench bench_ipc_umulti_ipc_link;
extern const struct bench bench_ipc_umulti_offset;
extern const struct bench bench_ipc_umulti_offset_link;
extern const struct bench bench_ipc_lookup_none;
extern const struct bench bench_ipc_lookup_ipc;
extern const struct bench bench_ipc_lookup_hash;
extern const struct bench bench_ipc_lookup_array;
extern const struct bench bench_ipc_mem;
extern const struct bench bench_ipc_populate;
extern const struct bench bench_ipc_attach;

#endif /* __BENCH_IP_COOKIE_H */
