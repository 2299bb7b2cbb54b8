/* xtvm's oneDNN glue (TVM's DNNL codegen helpers), included in every C source
 * the dnnl codegen generates. Each call site owns an xd_prim: its primitive
 * is created on the first call (plain row-major layouts: the buffers are
 * xtvm's) and run on the buffers of each call. oneDNN 2.x C API. */
#include <dnnl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XD_MAX_ARGS 72
#define XD_CHECK(call) do { if ((call) != dnnl_success) return -1; } while (0)

static dnnl_engine_t xd_engine;
static dnnl_stream_t xd_stream;

typedef struct {
  dnnl_primitive_t prim;
  int nargs;
  int kinds[XD_MAX_ARGS];
  dnnl_memory_t mem[XD_MAX_ARGS];
} xd_prim;

static int xd_init(void) {
  if (xd_engine) return 0;
  XD_CHECK(dnnl_engine_create(&xd_engine, dnnl_cpu, 0));
  XD_CHECK(dnnl_stream_create(&xd_stream, xd_engine, dnnl_stream_default_flags));
  return 0;
}

static dnnl_format_tag_t xd_plain_tag(int ndims) {
  static const dnnl_format_tag_t tags[] = {dnnl_a, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde};
  return ndims >= 1 && ndims <= 5 ? tags[ndims] : dnnl_format_tag_undef;
}

static int xd_md(dnnl_memory_desc_t* md, int ndims, const long* dims) {
  dnnl_dims_t d;
  for (int i = 0; i < ndims; ++i) d[i] = dims[i];
  XD_CHECK(dnnl_memory_desc_init_by_tag(md, ndims, d, dnnl_f32, xd_plain_tag(ndims)));
  return 0;
}

/* The primitive of `pd` (destroyed here) and one memory per argument kind. */
static int xd_make(xd_prim* p, dnnl_primitive_desc_t pd, int nargs, const int* kinds) {
  dnnl_status_t st = dnnl_primitive_create(&p->prim, pd);
  if (st == dnnl_success) {
    for (int i = 0; i < nargs && st == dnnl_success; ++i) {
      const dnnl_memory_desc_t* md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, kinds[i]);
      st = dnnl_memory_create(&p->mem[i], md, xd_engine, DNNL_MEMORY_NONE);
      p->kinds[i] = kinds[i];
    }
  }
  p->nargs = nargs;
  dnnl_primitive_desc_destroy(pd);
  return st == dnnl_success ? 0 : -1;
}

static int xd_run(xd_prim* p, void* const* ptrs) {
  dnnl_exec_arg_t args[XD_MAX_ARGS];
  for (int i = 0; i < p->nargs; ++i) {
    XD_CHECK(dnnl_memory_set_data_handle_v2(p->mem[i], ptrs[i], xd_stream));
    args[i].arg = p->kinds[i];
    args[i].memory = p->mem[i];
  }
  XD_CHECK(dnnl_primitive_execute(p->prim, xd_stream, p->nargs, args));
  XD_CHECK(dnnl_stream_wait(xd_stream));
  return 0;
}

/* Post-ops: a sum (dst already holds the addend), then a relu. */
static int xd_attr(dnnl_primitive_attr_t* attr, int sum, int relu) {
  dnnl_post_ops_t ops;
  XD_CHECK(dnnl_primitive_attr_create(attr));
  XD_CHECK(dnnl_post_ops_create(&ops));
  if (sum) XD_CHECK(dnnl_post_ops_append_sum(ops, 1.0f));
  if (relu) XD_CHECK(dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
  XD_CHECK(dnnl_primitive_attr_set_post_ops(*attr, ops));
  dnnl_post_ops_destroy(ops);
  return 0;
}

/* conv2d NCHW/OIHW; g = groups; s, d, pad = strides, dilations, (top, left, bottom, right). */
static int xd_conv2d(xd_prim* p, float* src, float* w, float* b, float* dst,
                     long n, long c, long h, long wi, long o, long kh, long kw, long oh, long ow,
                     long g, long sh, long sw, long dh, long dw,
                     long pt, long pl, long pb, long pr, int sum, int relu) {
  if (!p->prim) {
    dnnl_memory_desc_t src_md, w_md, b_md, dst_md;
    long sd[] = {n, c, h, wi}, dd[] = {n, o, oh, ow}, bd[] = {o};
    long wd4[] = {o, c / g, kh, kw}, wd5[] = {g, o / g, c / g, kh, kw};
    if (xd_md(&src_md, 4, sd) || xd_md(&dst_md, 4, dd) || xd_md(&b_md, 1, bd)) return -1;
    if (g == 1 ? xd_md(&w_md, 4, wd4) : xd_md(&w_md, 5, wd5)) return -1;
    dnnl_dims_t strides = {sh, sw}, dil = {dh - 1, dw - 1}, padl = {pt, pl}, padr = {pb, pr};
    dnnl_convolution_desc_t desc;
    XD_CHECK(dnnl_dilated_convolution_forward_desc_init(&desc, dnnl_forward_inference,
        dnnl_convolution_direct, &src_md, &w_md, b ? &b_md : NULL, &dst_md, strides, dil, padl, padr));
    dnnl_primitive_attr_t attr;
    dnnl_primitive_desc_t pd;
    if (xd_attr(&attr, sum, relu)) return -1;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, &desc, attr, xd_engine, NULL);
    dnnl_primitive_attr_destroy(attr);
    XD_CHECK(st);
    int kinds[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_BIAS};
    if (xd_make(p, pd, b ? 4 : 3, kinds)) return -1;
  }
  void* ptrs[] = {src, w, dst, b};
  return xd_run(p, ptrs);
}

/* A buffer in the layout a primitive chose, with reorders from and to xtvm's
 * plain row-major layout (none when the layouts agree). */
typedef struct {
  dnnl_primitive_t to_blocked, to_plain;
  dnnl_memory_t plain, blocked;
  void* buf;
} xd_layout;

static int xd_reorder_make(dnnl_primitive_t* re, const dnnl_memory_desc_t* from,
                           const dnnl_memory_desc_t* to) {
  dnnl_primitive_desc_t pd;
  XD_CHECK(dnnl_reorder_primitive_desc_create(&pd, from, xd_engine, to, xd_engine, NULL));
  dnnl_status_t st = dnnl_primitive_create(re, pd);
  dnnl_primitive_desc_destroy(pd);
  return st == dnnl_success ? 0 : -1;
}

/* `chosen` differs from `plain`: reorders both ways and a buffer for the blocked copy. */
static int xd_layout_make(xd_layout* l, const dnnl_memory_desc_t* plain,
                          const dnnl_memory_desc_t* chosen, int back) {
  if (dnnl_memory_desc_equal(plain, chosen)) return 0;
  size_t size = dnnl_memory_desc_get_size(chosen);
  l->buf = aligned_alloc(64, (size + 63) / 64 * 64);
  if (!l->buf) return -1;
  XD_CHECK(dnnl_memory_create(&l->plain, plain, xd_engine, DNNL_MEMORY_NONE));
  XD_CHECK(dnnl_memory_create(&l->blocked, chosen, xd_engine, l->buf));
  if (xd_reorder_make(&l->to_blocked, plain, chosen)) return -1;
  if (back && xd_reorder_make(&l->to_plain, chosen, plain)) return -1;
  return 0;
}

static int xd_reorder_run(dnnl_primitive_t re, dnnl_memory_t from, dnnl_memory_t to) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  XD_CHECK(dnnl_primitive_execute(re, xd_stream, 2, args));
  return 0;
}

/* The buffer the primitive reads or writes for plain data at `data`:
 * `data` itself, or the blocked copy (filled from `data` when `fill`). */
static void* xd_layout_in(xd_layout* l, void* data, int fill, int* rc) {
  if (!l->buf) return data;
  if (fill) {
    if (dnnl_memory_set_data_handle_v2(l->plain, data, xd_stream) != dnnl_success ||
        xd_reorder_run(l->to_blocked, l->plain, l->blocked)) *rc = -1;
  }
  return l->buf;
}

static int xd_layout_out(xd_layout* l, void* data) {
  if (!l->buf) return 0;
  XD_CHECK(dnnl_memory_set_data_handle_v2(l->plain, data, xd_stream));
  return xd_reorder_run(l->to_plain, l->blocked, l->plain);
}

typedef struct {
  xd_prim p;
  xd_layout src, wei, dst;
  const void* wei_from; /* the weights the blocked copy holds */
} xd_conv;

/* conv2d NCHW/OIHW (as xd_conv2d), run in the layouts oneDNN prefers
 * (blocked channels): activations are reordered on each call, the weights once. g = groups;
 * s, d, pad = strides, dilations, (top, left, bottom, right); `addend`
 * (or NULL): a residual summed by a post-op, before `relu`. */
static int xd_conv2d_blocked(xd_conv* c, float* src, float* w, float* b, float* addend, float* dst,
                     long n, long ci, long h, long wi, long o, long kh, long kw, long oh, long ow,
                     long g, long sh, long sw, long dh, long dw,
                     long pt, long pl, long pb, long pr, int relu) {
  xd_prim* p = &c->p;
  if (!p->prim) {
    dnnl_memory_desc_t src_md, w_md, b_md, dst_md, any_src, any_w, any_dst;
    long sd[] = {n, ci, h, wi}, dd[] = {n, o, oh, ow}, bd[] = {o};
    long wd4[] = {o, ci / g, kh, kw}, wd5[] = {g, o / g, ci / g, kh, kw};
    int wn = g == 1 ? 4 : 5;
    if (xd_md(&src_md, 4, sd) || xd_md(&dst_md, 4, dd) || xd_md(&b_md, 1, bd)) return -1;
    if (g == 1 ? xd_md(&w_md, 4, wd4) : xd_md(&w_md, 5, wd5)) return -1;
    any_src = src_md, any_w = w_md, any_dst = dst_md;
    XD_CHECK(dnnl_memory_desc_init_by_tag(&any_src, 4, src_md.dims, dnnl_f32, dnnl_format_tag_any));
    XD_CHECK(dnnl_memory_desc_init_by_tag(&any_dst, 4, dst_md.dims, dnnl_f32, dnnl_format_tag_any));
    XD_CHECK(dnnl_memory_desc_init_by_tag(&any_w, wn, w_md.dims, dnnl_f32, dnnl_format_tag_any));
    dnnl_dims_t strides = {sh, sw}, dil = {dh - 1, dw - 1}, padl = {pt, pl}, padr = {pb, pr};
    dnnl_convolution_desc_t desc;
    XD_CHECK(dnnl_dilated_convolution_forward_desc_init(&desc, dnnl_forward_inference,
        dnnl_convolution_direct, &any_src, &any_w, b ? &b_md : NULL, &any_dst, strides, dil,
        padl, padr));
    dnnl_primitive_attr_t attr;
    dnnl_primitive_desc_t pd;
    if (xd_attr(&attr, addend != NULL, relu)) return -1;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, &desc, attr, xd_engine, NULL);
    dnnl_primitive_attr_destroy(attr);
    XD_CHECK(st);
    if (xd_layout_make(&c->src, &src_md, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), 0) ||
        xd_layout_make(&c->wei, &w_md, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), 0) ||
        xd_layout_make(&c->dst, &dst_md, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), 1))
      return -1;
    int kinds[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_BIAS};
    if (xd_make(p, pd, b ? 4 : 3, kinds)) return -1;
  }
  int rc = 0;
  void* s = xd_layout_in(&c->src, src, 1, &rc);
  void* wb = xd_layout_in(&c->wei, w, c->wei_from != w, &rc);
  c->wei_from = w;
  void* d = dst;
  if (addend) {  /* the sum post-op adds to what the destination holds */
    if (c->dst.buf) d = xd_layout_in(&c->dst, addend, 1, &rc);
    else memcpy(dst, addend, (size_t)(n * o * oh * ow) * sizeof(float));
  } else {
    d = xd_layout_in(&c->dst, dst, 0, &rc);
  }
  if (rc) return -1;
  void* ptrs[] = {s, wb, d, b};
  if (xd_run(p, ptrs)) return -1;
  return xd_layout_out(&c->dst, dst);
}

/* dst[m, n] = src[m, k] . w (w_nk: [n, k], else [k, n]) + b[n] */
static int xd_dense(xd_prim* p, float* src, float* w, float* b, float* dst,
                    long m, long k, long nn, int w_nk, int sum, int relu) {
  if (!p->prim) {
    dnnl_memory_desc_t src_md, w_md, b_md, dst_md;
    long sd[] = {m, k}, dd[] = {m, nn}, bd[] = {nn};
    dnnl_dims_t wd = {nn, k};
    if (xd_md(&src_md, 2, sd) || xd_md(&dst_md, 2, dd) || xd_md(&b_md, 1, bd)) return -1;
    XD_CHECK(dnnl_memory_desc_init_by_tag(&w_md, 2, wd, dnnl_f32, w_nk ? dnnl_oi : dnnl_io));
    dnnl_inner_product_desc_t desc;
    XD_CHECK(dnnl_inner_product_forward_desc_init(&desc, dnnl_forward_inference, &src_md, &w_md,
        b ? &b_md : NULL, &dst_md));
    dnnl_primitive_attr_t attr;
    dnnl_primitive_desc_t pd;
    if (xd_attr(&attr, sum, relu)) return -1;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, &desc, attr, xd_engine, NULL);
    dnnl_primitive_attr_destroy(attr);
    XD_CHECK(st);
    int kinds[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_BIAS};
    if (xd_make(p, pd, b ? 4 : 3, kinds)) return -1;
  }
  void* ptrs[] = {src, w, dst, b};
  return xd_run(p, ptrs);
}

/* 2-d pooling, NCHW; alg: dnnl_pooling_max / _avg_include_padding / _avg_exclude_padding. */
static int xd_pool2d(xd_prim* p, float* src, float* dst, dnnl_alg_kind_t alg,
                     long n, long c, long h, long wi, long oh, long ow, long kh, long kw,
                     long sh, long sw, long dh, long dw, long pt, long pl, long pb, long pr) {
  if (!p->prim) {
    dnnl_memory_desc_t src_md, dst_md;
    long sd[] = {n, c, h, wi}, dd[] = {n, c, oh, ow};
    if (xd_md(&src_md, 4, sd) || xd_md(&dst_md, 4, dd)) return -1;
    dnnl_dims_t strides = {sh, sw}, kernel = {kh, kw}, dil = {dh - 1, dw - 1};
    dnnl_dims_t padl = {pt, pl}, padr = {pb, pr};
    dnnl_pooling_v2_desc_t desc;
    XD_CHECK(dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, &src_md,
        &dst_md, strides, kernel, dil, padl, padr));
    dnnl_primitive_desc_t pd;
    XD_CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, xd_engine, NULL));
    int kinds[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    if (xd_make(p, pd, 2, kinds)) return -1;
  }
  void* ptrs[] = {src, dst};
  return xd_run(p, ptrs);
}

/* Inference batch norm along axis 1 of an [n, c, rest...] tensor (rank 2..5). */
static int xd_batch_norm(xd_prim* p, float* src, float* gamma, float* beta, float* mean,
                         float* var, float* dst, int ndims, const long* dims, float eps) {
  if (!p->prim) {
    dnnl_memory_desc_t md;
    if (xd_md(&md, ndims, dims)) return -1;
    dnnl_batch_normalization_desc_t desc;
    XD_CHECK(dnnl_batch_normalization_forward_desc_init(&desc, dnnl_forward_inference, &md, eps,
        dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift));
    dnnl_primitive_desc_t pd;
    XD_CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, xd_engine, NULL));
    int kinds[] = {DNNL_ARG_SRC, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_SCALE,
                   DNNL_ARG_SHIFT, DNNL_ARG_DST};
    if (xd_make(p, pd, 6, kinds)) return -1;
  }
  void* ptrs[] = {src, mean, var, gamma, beta, dst};
  return xd_run(p, ptrs);
}

static int xd_relu(xd_prim* p, float* src, float* dst, long count) {
  if (!p->prim) {
    dnnl_memory_desc_t md;
    long d[] = {count};
    if (xd_md(&md, 1, d)) return -1;
    dnnl_eltwise_desc_t desc;
    XD_CHECK(dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, dnnl_eltwise_relu, &md,
        0.0f, 0.0f));
    dnnl_primitive_desc_t pd;
    XD_CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, xd_engine, NULL));
    int kinds[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    if (xd_make(p, pd, 2, kinds)) return -1;
  }
  void* ptrs[] = {src, dst};
  return xd_run(p, ptrs);
}

/* dst = a + b, b broadcast to a's shape (dims of b padded with leading 1s). */
static int xd_add(xd_prim* p, float* a, float* b, float* dst, int ndims, const long* adims,
                  const long* bdims) {
  if (!p->prim) {
    dnnl_memory_desc_t a_md, b_md;
    if (xd_md(&a_md, ndims, adims) || xd_md(&b_md, ndims, bdims)) return -1;
    dnnl_binary_desc_t desc;
    XD_CHECK(dnnl_binary_desc_init(&desc, dnnl_binary_add, &a_md, &b_md, &a_md));
    dnnl_primitive_desc_t pd;
    XD_CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, xd_engine, NULL));
    int kinds[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST};
    if (xd_make(p, pd, 3, kinds)) return -1;
  }
  void* ptrs[] = {a, b, dst};
  return xd_run(p, ptrs);
}

/* dst = concatenate(srcs[0..count), axis); dims: count+1 shapes of ndims (the inputs', then dst's). */
static int xd_concat(xd_prim* p, float* const* srcs, float* dst, int count, int ndims,
                     const long* dims, int axis) {
  if (!p->prim) {
    dnnl_memory_desc_t src_md[XD_MAX_ARGS - 1], dst_md;
    for (int i = 0; i < count; ++i)
      if (xd_md(&src_md[i], ndims, dims + i * ndims)) return -1;
    if (xd_md(&dst_md, ndims, dims + count * ndims)) return -1;
    dnnl_primitive_desc_t pd;
    XD_CHECK(dnnl_concat_primitive_desc_create(&pd, &dst_md, count, axis, src_md, NULL,
        xd_engine));
    int kinds[XD_MAX_ARGS];
    for (int i = 0; i < count; ++i) kinds[i] = DNNL_ARG_MULTIPLE_SRC + i;
    kinds[count] = DNNL_ARG_DST;
    if (xd_make(p, pd, count + 1, kinds)) return -1;
  }
  void* ptrs[XD_MAX_ARGS];
  for (int i = 0; i < count; ++i) ptrs[i] = srcs[i];
  ptrs[count] = dst;
  return xd_run(p, ptrs);
}
