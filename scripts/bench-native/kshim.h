/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's types and macros, as an x86-64 build sees
 * them, to compile in user space and unchanged kernel/bpf/ip_cookie.c,
 * lib/bsearch.c, lib/sort.c, lib/rhashtable.c, the real headers
 * include/linux/{hash,jhash,bsearch,sort,list_nulls,rculist_nulls}.h,
 * include/linux/rhashtable{,-types}.h and
 * kernel/bpf/{percpu_freelist,bpf_lru_list}.h, and the definitions
 * bench-native.sh extracts from kernel/bpf/hashtab.c,
 * kernel/trace/bpf_trace.c, include/linux/bpf.h and lib/string.c.
 *
 * bench-native.sh points every other <linux/...> and <asm/...> header
 * those files include at this file; this file includes the patched
 * tree's UAPI <linux/bpf.h>.
 *
 * Only the lookup side has to behave as in the kernel.  The writer side
 * runs single-threaded: locks are no-ops, RCU callbacks run at once, and
 * "user" pointers are plain pointers.  struct bpf_map and the types only
 * embedded in structures are not the kernel's: they hold what the code
 * reads.  The index table, its slots and the elements of the maps are the
 * kernel's own.
 */
#ifndef BENCH_NATIVE_KSHIM_H
#define BENCH_NATIVE_KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef int (*cmp_func_t)(const void *a, const void *b);
typedef int (*cmp_r_func_t)(const void *a, const void *b, const void *priv);
typedef void (*swap_func_t)(void *a, void *b, int size);
typedef void (*swap_r_func_t)(void *a, void *b, int size, const void *priv);

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
/* Objects that call memcmp() rename it kernel_memcmp(): lib/string.c's,
 * out of line as in the kernel (arch/x86/include/asm/string_64.h).
 */
int memcmp(const void *cs, const void *ct, size_t count);
void *malloc(size_t size);
void *calloc(size_t nmemb, size_t size);
void free(void *ptr);

/* compiler.h, compiler_attributes.h */
#undef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#define noinline		__attribute__((__noinline__))
#define __packed		__attribute__((__packed__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __maybe_unused		__attribute__((__unused__))
#define __visible		__attribute__((__externally_visible__))
#define fallthrough		__attribute__((__fallthrough__))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __rcu
#define __user
#define __percpu
#define __force
#define __iomem
#define __acquires(x)
#define __releases(x)
/* compiler-context-analysis.h: annotations only */
#define __acquires_shared(x)
#define __releases_shared(x)
#define __must_hold(x)
#define __must_hold_shared(x)
#define __acquire_shared(x)	(void)0
#define __release_shared(x)	(void)0
#define __acquire(x)		(void)0
#define __release(x)		(void)0
#define _THIS_IP_		({ __label__ __here; __here: (unsigned long)&&__here; })
#define L1_CACHE_BYTES		64
#define SMP_CACHE_BYTES		L1_CACHE_BYTES
#define ____cacheline_aligned	__aligned(SMP_CACHE_BYTES)
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#define BITS_PER_LONG		64

/* kconfig.h: the options of an x86-64 build that the code asks about */
#define CONFIG_64BIT				1
#define CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS	1
#define __ARG_PLACEHOLDER_1			0,
#define __take_second_arg(__ignored, val, ...)	val
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define IS_ENABLED(option)		___is_defined(option)
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define NOKPROBE_SYMBOL(sym)
/* build_bug.h: as the kernel's, checked once inlined and optimised */
#define BUILD_BUG_ON(cond) do {						\
	extern void __shim_build_bug(void)				\
		__attribute__((__error__("BUILD_BUG_ON: " #cond)));	\
	if (cond)							\
		__shim_build_bug();					\
} while (0)

#define barrier()		__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	(*(volatile __typeof__(x) *)&(x) = (val))

/* A kernel warning is a broken model: stop (see bench-native.c). */
void shim_warn(const char *file, int line) __attribute__((__noreturn__));
#define WARN_ON_ONCE(cond)						\
	({ bool __c = !!(cond); if (unlikely(__c)) shim_warn(__FILE__, __LINE__); __c; })
#define WARN_ON(cond)		WARN_ON_ONCE(cond)
#define BUG_ON(cond)		((void)WARN_ON_ONCE(cond))

/* kernel.h, minmax.h, math.h, bits.h, sizes.h, overflow.h */
#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))
#define BIT(n)			(1UL << (n))
#define SZ_1K			0x00000400
#define SZ_4K			0x00001000
#define SZ_64K			0x00010000
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define max3(a, b, c)		max(max(a, b), c)
#define round_up(x, y)		((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_32_bits(n)	((u32)((u64)(n) >> 32))
#define ilog2(n)		(63 - __builtin_clzll((u64)(n)))

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << ilog2(n);
}

/* bitops.h */
static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

static inline size_t size_mul(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

static inline size_t size_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

#define struct_size(p, member, n)					\
	size_add(sizeof(*(p)), size_mul(sizeof(*(p)->member), (n)))
#define struct_size_t(type, member, n)					\
	struct_size((type *)NULL, member, n)

/* err.h */
#define MAX_ERRNO		4095
#define IS_ERR_VALUE(x)		((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long err) { return (void *)err; }
static inline long PTR_ERR(const void *p) { return (long)p; }
static inline bool IS_ERR(const void *p) { return IS_ERR_VALUE(p); }
static inline bool IS_ERR_OR_NULL(const void *p) { return !p || IS_ERR_VALUE(p); }
static inline void *ERR_CAST(const void *p) { return (void *)p; }
static inline int PTR_ERR_OR_ZERO(const void *p) { return IS_ERR(p) ? PTR_ERR(p) : 0; }

/* errno-base.h, errno.h (the UAPI values) */
#define EPERM		1
#define ENOENT		2
#define E2BIG		7
#define EAGAIN		11
#define ENOMEM		12
#define EFAULT		14
#define EBUSY		16
#define EEXIST		17
#define EINVAL		22
#define ENOSPC		28
#define EOPNOTSUPP	95

/* unaligned.h */
#define get_unaligned(ptr) ({						\
	const struct { __typeof__(*(ptr)) x; } __packed *__pptr = (const void *)(ptr); \
	__pptr->x; })

/* types.h, list.h, poison.h */
struct list_head {
	struct list_head *next, *prev;
};
struct hlist_node {
	struct hlist_node *next, **pprev;
};
struct llist_node { struct llist_node *next; };
struct llist_head { struct llist_node *first; };
typedef struct { int counter; } atomic_t;
#define POISON_POINTER_DELTA	0
#define LIST_POISON1		((void *)0x100)
#define LIST_POISON2		((void *)0x122)

/* list.h, for lib/rhashtable.c's walker lists (the writer side) */
#define INIT_LIST_HEAD(l)	((l)->next = (l)->prev = (l))
#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

static inline void list_add(struct list_head *new, struct list_head *head)
{
	new->next = head->next;
	new->prev = head;
	head->next->prev = new;
	head->next = new;
}

static inline void list_del(struct list_head *entry)
{
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

/* atomic.h, cmpxchg.h, barrier.h (x86: smp_rmb() is a compiler barrier) */
#define atomic_read(v)		READ_ONCE((v)->counter)
#define atomic_set(v, i)	WRITE_ONCE((v)->counter, (i))
#define atomic_inc(v)		__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_dec(v)		__atomic_fetch_sub(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define cmpxchg(ptr, old, new)	__sync_val_compare_and_swap(ptr, old, new)
#define smp_rmb()		barrier()

/* refcount.h (no saturation: the model never over- or underflows it) */
typedef struct { int refs; } refcount_t;
#define refcount_set(r, n)	WRITE_ONCE((r)->refs, (n))
#define refcount_inc(r)		__atomic_fetch_add(&(r)->refs, 1, __ATOMIC_SEQ_CST)
#define refcount_dec_and_test(r)					\
	(__atomic_sub_fetch(&(r)->refs, 1, __ATOMIC_SEQ_CST) == 0)

/*
 * nospec.h: array_index_nospec() with x86's array_index_mask_nospec() of
 * arch/x86/include/asm/barrier.h (cmp + sbb, in the width of index + size),
 * which ip_cookie_find() runs; bench-native.sh checks the asm is unchanged.
 */
#define array_index_mask_nospec(idx, sz) ({				\
	__typeof__((idx) + (sz)) __idx = (idx);				\
	__typeof__(__idx) __sz = (sz);					\
	unsigned long __mask;						\
	asm volatile ("cmp %1,%2; sbb %0,%0"				\
		      : "=r" (__mask) : "g" (__sz), "r" (__idx) : "cc");	\
	__mask; })
#define array_index_nospec(index, size) ({				\
	__typeof__(index) _i = (index);					\
	__typeof__(size) _s = (size);					\
	unsigned long _mask = array_index_mask_nospec(_i, _s);		\
	(__typeof__(_i))(_i & _mask); })

/* spinlock, mutex, lockdep: the writer side is single-threaded here */
typedef struct { u32 val; } arch_spinlock_t;	/* qspinlock, no debug */
typedef struct { arch_spinlock_t raw_lock; } raw_spinlock_t;
typedef struct { raw_spinlock_t rlock; } spinlock_t;
/* rqspinlock.h: x86's rqspinlock_t is struct qspinlock, one u32 */
typedef struct { u32 val; } rqspinlock_t;
#define raw_res_spin_lock_init(l)	((l)->val = 0)
struct mutex { long owner; };
struct lock_class_key { char dummy; };
#define mutex_init(m)		((void)(m))
#define mutex_init_with_key(m, k) ((void)(m), (void)(k))
#define mutex_destroy(m)	((void)(m))
#define mutex_lock(m)		((void)(m))
#define mutex_unlock(m)		((void)(m))
#define lockdep_is_held(l)	((void)(l), 1)
#define lockdep_assert_held(l)	((void)(l))
#define lockdep_set_class(l, k)	do { } while (0)
#define raw_spin_lock_init(l)	((l)->raw_lock.val = 0)
#define spin_lock_init(l)	((l)->rlock.raw_lock.val = 0)
#define spin_lock(l)		((void)(l))
#define spin_unlock(l)		((void)(l))
#define cond_resched()		do { } while (0)
#define preempt_disable()	barrier()
#define preempt_enable()	barrier()
#define local_irq_save(flags)	((flags) = 0)
#define local_irq_restore(flags) ((void)(flags))
/* lockdep_types.h without CONFIG_LOCKDEP: an empty struct, no-op hooks */
struct lockdep_map { };
#define SINGLE_DEPTH_NESTING			1
#define lockdep_init_map(m, n, k, s)		((void)(m), (void)(k))
#define lock_map_acquire(m)			((void)(m))
#define lock_map_release(m)			((void)(m))
#define lock_acquire_exclusive(m, s, t, n, i)	((void)(m))

/*
 * bit_spinlock.h: rhashtable's writers lock a bucket by setting BIT(0) of
 * its pointer, which readers mask off, so the bit is really set and
 * cleared.  One thread: a bit already set is a lock never released.
 */
static inline void bit_spin_lock(int bitnum, unsigned long *addr)
{
	WARN_ON_ONCE(*addr & (1UL << bitnum));
	*addr |= 1UL << bitnum;
}

static inline void bit_spin_unlock(int bitnum, unsigned long *addr)
{
	WARN_ON_ONCE(!(*addr & (1UL << bitnum)));
	*addr &= ~(1UL << bitnum);
}

/* rcupdate.h: one thread, so a callback can run at once */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};
typedef void (*rcu_callback_t)(struct rcu_head *head);
/*
 * rcu_read_lock() and rcu_read_unlock() of the base kernel's config
 * (build/kbuild-base: TREE_RCU without PREEMPT_RCU, PREEMPT_COUNT=y):
 * __rcu_read_lock() is preempt_disable(), an increment of the CPU's
 * preempt count; __rcu_read_unlock() is preempt_enable(), a decrement that
 * calls __preempt_schedule() when the count drops to 0 (x86: decl with a
 * per-CPU operand, then a jump on ZF).  The count is 1 here, as in a
 * tracing program, which runs with preemption disabled, so the call never
 * happens.  bench-native.sh checks rcupdate.h still defines them so.
 * RHASH's lookup runs them (guard(rcu)); no other modelled lookup does.
 */
extern unsigned int shim_preempt_count;
void shim_preempt_schedule(void);

static __always_inline void rcu_read_lock(void)
{
	asm volatile ("incl %0" : "+m" (shim_preempt_count));
	barrier();
}

static __always_inline void rcu_read_unlock(void)
{
	bool zero;

	barrier();
	asm volatile ("decl %0" : "+m" (shim_preempt_count), "=@ccz" (zero));
	if (unlikely(zero))
		shim_preempt_schedule();
}

/* cleanup.h: guard(rcu)() as DEFINE_LOCK_GUARD_0(rcu, ...) makes it, an
 * rcu_read_lock() now and an rcu_read_unlock() when the scope ends.
 */
struct shim_guard_rcu { char unused; };
static __always_inline struct shim_guard_rcu shim_guard_rcu_enter(void)
{
	rcu_read_lock();
	return (struct shim_guard_rcu){ 0 };
}
static __always_inline void shim_guard_rcu_exit(struct shim_guard_rcu *g)
{
	rcu_read_unlock();
}
#define __shim_guard(name, id)						\
	struct shim_guard_##name					\
	__attribute__((__cleanup__(shim_guard_##name##_exit), __unused__)) \
	id = shim_guard_##name##_enter
#define __shim_guard_id(name, n)	__shim_guard(name, __shim_guard_##n)
#define __shim_guard_cnt(name, n)	__shim_guard_id(name, n)
#define guard(name)			__shim_guard_cnt(name, __COUNTER__)
#define rcu_read_lock_held()		1
#define rcu_read_lock_bh_held()		1
#define rcu_read_lock_trace_held()	1
#define bpf_rcu_lock_held()		1
#define rcu_trace_implies_rcu_gp()	true
#define synchronize_rcu()		do { } while (0)
#define synchronize_rcu_tasks_trace()	do { } while (0)
#define call_rcu(head, f)		(f)(head)
#define call_rcu_tasks_trace(head, f)	(f)(head)
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference_all(p)		READ_ONCE(p)
#define rcu_dereference_all_check(p, c)	READ_ONCE(p)
#define rcu_dereference(p)		READ_ONCE(p)
#define rcu_dereference_check(p, c)	READ_ONCE(p)
#define rcu_dereference_protected(p, c)	(p)
#define rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, v)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_head_init(head)		((head)->func = NULL)
/* call_rcu() runs the callback at once: no head is ever pending */
#define rcu_head_after_call_rcu(head, f) ((void)(head), (void)(f), false)

/* Memory: see bench-native.c for the allocator model. */
#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_ALIGN(x)		round_up((size_t)(x), PAGE_SIZE)
#define PAGE_ALLOC_COSTLY_ORDER	3
#define GFP_KERNEL		0x1u
#define GFP_USER		0x2u
#define __GFP_NOWARN		0x4u
#define __GFP_RETRY_MAYFAIL	0x8u
#define __GFP_ZERO		0x10u
#define GFP_ATOMIC		0x20u
#define __GFP_NOFAIL		0x40u
#define NUMA_NO_NODE		(-1)
typedef unsigned int gfp_t;
#define gfpflags_allow_blocking(gfp)	(!!((gfp) & (GFP_KERNEL | GFP_USER)))

size_t kmalloc_size_roundup(size_t size);
void *shim_kmalloc(size_t size);	/* an object of a kmalloc slab */
void *shim_area_alloc(size_t size);	/* bpf_map_area_alloc() */
void *shim_kvmalloc(size_t size);	/* kvmalloc() */
void kvfree(const void *ptr);
#define kfree(p)			kvfree(p)
#define kvmalloc(size, gfp)		shim_kvmalloc(size)
#define kvmalloc_array(n, size, gfp)	shim_kvmalloc(size_mul((n), (size)))
/* alloc_tag.h without CONFIG_MEM_ALLOC_PROFILING; slab.h's _noprof calls
 * (every allocation is zeroed: fresh memory, see bench-native.c)
 */
#define alloc_hooks(do_alloc)			(do_alloc)
#define alloc_hooks_tag(tag, do_alloc)		(do_alloc)
#define alloc_tag_record(p)			do { } while (0)
#define kmalloc_noprof(size, gfp)		((void)(gfp), shim_kmalloc(size))
#define kvmalloc_node_noprof(size, gfp, node)	\
	((void)(gfp), (void)(node), shim_kvmalloc(size))
#define kvmalloc_node_align_noprof(size, align, gfp, node)	\
	((void)(align), (void)(gfp), (void)(node), shim_kvmalloc(size))
#define kvfree_atomic(p)			kvfree(p)

/* uaccess.h: "user" memory is the bench's own */
#define u64_to_user_ptr(x)		((void *)(uintptr_t)(x))
#define copy_from_user(to, from, n)	(memcpy((to), (from), (n)), 0UL)
#define copy_to_user(to, from, n)	(memcpy((to), (from), (n)), 0UL)
#define put_user(x, ptr)		(*(ptr) = (x), 0)

/* random.h: the bench's seeded generator */
u64 get_random_u64(void);
u32 get_random_u32(void);

/* capability.h: a root tracer */
#define CAP_SYS_ADMIN		21
#define capable(cap)		true

/* sched.h: current->bpf_ctx */
struct bpf_run_ctx;
struct task_struct {
	struct bpf_run_ctx *bpf_ctx;
};
extern struct task_struct shim_task;
#define current			(&shim_task)

/* Types only named by pointer, or embedded but never read by a lookup. */
struct file;
struct btf;
struct btf_type { u32 name_off, info; union { u32 size, type; }; };
struct module;
struct seq_file;
struct obj_cgroup;
struct bpf_mem_cache;
struct bpf_mem_caches;
struct bpf_link { void *opaque[8]; };
struct fprobe { void *opaque[16]; };
struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	work_func_t func;
	struct work_struct *shim_next;	/* on shim_work_list */
	bool shim_pending;
	void *opaque[1];
};
/*
 * workqueue.h.  IP_COOKIE's deferred frees (queue_work()) wait for the
 * map's free, which frees them.  schedule_work() (rhashtable's resize
 * worker) queues the work on shim_work_list; the model runs the list,
 * in process context as a worker would, between the writes it makes.
 */
extern struct work_struct *shim_work_list;
void shim_run_work(void);
#define system_unbound_wq		NULL
#define system_dfl_wq			NULL
#define INIT_WORK(w, f)			((w)->func = (f), (w)->shim_pending = false)
#define queue_work(wq, w)		((void)(wq), (void)(w))

static inline bool schedule_work(struct work_struct *work)
{
	if (work->shim_pending)
		return false;
	work->shim_pending = true;
	work->shim_next = shim_work_list;
	shim_work_list = work;
	return true;
}

static inline bool cancel_work_sync(struct work_struct *work)
{
	struct work_struct **pw;

	if (!work->shim_pending)
		return false;
	for (pw = &shim_work_list; *pw != work; pw = &(*pw)->shim_next)
		;
	*pw = work->shim_next;
	work->shim_pending = false;
	return true;
}
/*
 * irq_work.h: irq_work_queue() (rhashtable's kick of its resize worker
 * since 7.x) queues the irq_work on shim_irq_work_list; shim_run_work()
 * runs those, as the self-IPI would once the writer's lock is released,
 * then the works they queued.  32 bytes, as the kernel's.
 */
struct irq_work {
	struct irq_work *shim_next;
	void (*func)(struct irq_work *work);
	bool shim_pending;
	void *opaque[1];
};
extern struct irq_work *shim_irq_work_list;
#define init_irq_work(w, f)	((w)->func = (f), (w)->shim_pending = false)

static inline bool irq_work_queue(struct irq_work *work)
{
	if (work->shim_pending)
		return false;
	work->shim_pending = true;
	work->shim_next = shim_irq_work_list;
	shim_irq_work_list = work;
	return true;
}

static inline void irq_work_sync(struct irq_work *work)
{
	struct irq_work **pw;

	if (!work->shim_pending)
		return;
	for (pw = &shim_irq_work_list; *pw != work; pw = &(*pw)->shim_next)
		;
	*pw = work->shim_next;
	work->shim_pending = false;
}
struct percpu_counter { s64 count; void *opaque[3]; };
struct bpf_mem_alloc {
	struct bpf_mem_caches __percpu *caches;
	struct bpf_mem_cache __percpu *cache;
	struct obj_cgroup *objcg;
	bool percpu;
	struct work_struct work;
	u32 shim_unit_size;	/* the kernel keeps it per CPU, in the cache */
};

/*
 * kernel/bpf/memalloc.c for a fixed-size, not per-CPU allocator (RHASH's
 * elements): bpf_mem_alloc_init() makes room for an llist_node before
 * each object (size += LLIST_NODE_SZ), the caches refill with
 * kmalloc_node(c->unit_size), and bpf_mem_cache_alloc() returns the
 * object past that node.  bench-native.sh checks those lines.
 */
#define LLIST_NODE_SZ		sizeof(struct llist_node)
static inline int bpf_mem_alloc_init(struct bpf_mem_alloc *ma, int size,
				     bool percpu)
{
	if (percpu || !size)
		return -EINVAL;	/* not modelled */
	size += LLIST_NODE_SZ;
	ma->shim_unit_size = size;
	return 0;
}

static inline void *bpf_mem_cache_alloc(struct bpf_mem_alloc *ma)
{
	char *ret = shim_kmalloc(ma->shim_unit_size);

	return !ret ? NULL : ret + LLIST_NODE_SZ;
}
#define bpf_mem_alloc_destroy(ma)	((void)(ma))

/*
 * The patched tree's UAPI <linux/bpf.h> and the BPF_* instruction macros
 * of tools/include/linux/filter.h (<tree/...> is the tree bench-native.sh
 * links into its include directory).
 */
#include <tree/include/uapi/linux/bpf.h>
#include <tree/tools/include/linux/filter.h>

/* include/linux/bpf.h: what the map code reads from struct bpf_map */

#define BPF_F_ACCESS_MASK	(BPF_F_RDONLY | BPF_F_RDONLY_PROG |	\
				 BPF_F_WRONLY | BPF_F_WRONLY_PROG)

struct bpf_map {
	const struct bpf_map_ops *ops;
	enum bpf_map_type map_type;
	u32 key_size;
	u32 value_size;
	u32 max_entries;
	u32 map_flags;
	int numa_node;
	bool bypass_spec_v1;
	struct btf *btf;
	u32 btf_key_type_id;
	u32 btf_value_type_id;
};

struct bpf_map_ops {
	bool (*map_meta_equal)(const struct bpf_map *meta0,
			       const struct bpf_map *meta1);
	int (*map_alloc_check)(union bpf_attr *attr);
	struct bpf_map *(*map_alloc)(union bpf_attr *attr);
	void (*map_free)(struct bpf_map *map);
	int (*map_get_next_key)(struct bpf_map *map, void *key, void *next_key);
	void *(*map_lookup_elem_sys_only)(struct bpf_map *map, void *key);
	int (*map_lookup_batch)(struct bpf_map *map, const union bpf_attr *attr,
				union bpf_attr __user *uattr);
	int (*map_update_batch)(struct bpf_map *map, struct file *map_file,
				const union bpf_attr *attr,
				union bpf_attr __user *uattr);
	int (*map_delete_batch)(struct bpf_map *map, const union bpf_attr *attr,
				union bpf_attr __user *uattr);
	void *(*map_lookup_elem)(struct bpf_map *map, void *key);
	long (*map_update_elem)(struct bpf_map *map, void *key, void *value,
				u64 flags);
	long (*map_delete_elem)(struct bpf_map *map, void *key);
	int (*map_gen_lookup)(struct bpf_map *map, struct bpf_insn *insn_buf);
	void (*map_seq_show_elem)(struct bpf_map *map, void *key,
				  struct seq_file *m);
	int (*map_check_btf)(struct bpf_map *map, const struct btf *btf,
			     const struct btf_type *key_type,
			     const struct btf_type *value_type);
	u64 (*map_mem_usage)(const struct bpf_map *map);
	u32 *map_btf_id;
};

#define BTF_ID_LIST_SINGLE(name, prefix, typename) \
	static u32 __maybe_unused name[1];

/* The kfunc's registration: compiled, never run. */
#define __bpf_kfunc
#define __bpf_kfunc_start_defs()
#define __bpf_kfunc_end_defs()
#define KF_RET_NULL	(1 << 1)
#define BTF_KFUNCS_START(name)	static u32 __maybe_unused name[1];
#define BTF_ID_FLAGS(prefix, name, ...)
#define BTF_KFUNCS_END(name)
#define THIS_MODULE	((struct module *)NULL)
#define __init
#define late_initcall(fn)	static int (*__maybe_unused fn##_ptr)(void) = fn
struct btf_kfunc_id_set {
	struct module *owner;
	void *set;
};

static inline int register_btf_kfunc_id_set(int prog_type,
					    const struct btf_kfunc_id_set *s)
{
	return 0;
}

/* include/linux/filter.h: what RHASH's update brackets the insert with */
#define bpf_disable_instrumentation()	do { } while (0)
#define bpf_enable_instrumentation()	do { } while (0)

static inline void bpf_map_init_from_attr(struct bpf_map *map,
					  union bpf_attr *attr)
{
	map->map_type = attr->map_type;
	map->key_size = attr->key_size;
	map->value_size = attr->value_size;
	map->max_entries = attr->max_entries;
	map->map_flags = attr->map_flags;
	map->numa_node = NUMA_NO_NODE;
}

#define bpf_map_attr_numa_node(attr)	NUMA_NO_NODE
#define bpf_bypass_spec_v1(tok)		true	/* root: perfmon_capable() */
#define bpf_map_flags_access_ok(f)	true
#define bpf_map_area_alloc(size, node)	((void)(node), shim_area_alloc(size))
#define bpf_map_area_alloc_memcg(map, size) shim_area_alloc(size)
#define bpf_map_area_free(p)		kvfree(p)
/* memcg accounting: nothing to charge here */
struct mem_cgroup;
static inline void bpf_map_memcg_enter(const struct bpf_map *map,
				       struct mem_cgroup **old_memcg,
				       struct mem_cgroup **new_memcg)
{
	*old_memcg = *new_memcg = NULL;
}
#define bpf_map_memcg_exit(old_memcg, memcg)	((void)(old_memcg), (void)(memcg))
/* copy_map_value() of a map without a btf_record: value_size bytes */
#define copy_map_value(map, dst, src)	memcpy((dst), (src), (map)->value_size)
#define bpf_map_kmalloc_node(map, size, gfp, node) \
	((void)(node), shim_kmalloc(size))
#define bpf_map_meta_equal		NULL
#define generic_map_lookup_batch	NULL
#define generic_map_update_batch	NULL
#define generic_map_delete_batch	NULL
/* btf.h: bpffs printing, never run here */
#define btf_type_seq_show(btf, id, obj, m) do { } while (0)
/* Module text is never a key here: the purge's count stays 0. */
#define is_vmalloc_or_module_addr(p)	false
#define seq_puts(m, s)			do { } while (0)
#define seq_putc(m, c)			do { } while (0)

#endif /* BENCH_NATIVE_KSHIM_H */
