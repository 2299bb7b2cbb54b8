/* run_model.c: run an xtvm model from C, with nothing but its shared library.
 *
 * The program is written once for every model: it reads the model's inputs
 * and outputs (names, shapes, dtypes, byte sizes) from the generated header
 * tvmgen_default.h (xtvm-compile --header, docs/abi.md "The AOT entry (C ABI)").
 * Build it against one model:
 *
 *   xtvm-compile model.onnx -o build/model.so --header build/tvmgen_default.h
 *   cc -O2 examples/run_model.c -Ibuild -Lbuild -l:model.so -Wl,-rpath,'$ORIGIN' -o build/run_model
 *   build/run_model [-i input0.bin ...] [-o out] [-n 100] [-t 1]
 *
 * Options:
 *   -i FILE    the next input's raw bytes (C order, little-endian, exactly its
 *              size); inputs without a file get a deterministic fill
 *   -o PREFIX  write output k's raw bytes to PREFIX<k>.bin
 *   -n N       time N runs after one warm-up run (default 10) and print the median
 *   -t N       run the kernels on N threads (xtvm_set_num_threads, when the
 *              library has parallel kernels; else OMP_NUM_THREADS or all cores)
 *   -p N       print the first N elements of each output (default 10)
 *   -z K       pass NULL for pointer K (inputs, then outputs) and print the
 *              entry's error code (a test of the ABI)
 *
 * Memory: the input and output buffers are allocated once, at start-up; the
 * model's intermediate tensors live in the library's static workspace (.bss).
 * The timed loop calls tvmgen_default_run and clock_gettime only.
 */
#define _POSIX_C_SOURCE 200112L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tvmgen_default.h"

/* Defined by libraries whose kernels run parallel loops (OpenMP). */
extern void xtvm_set_num_threads(int32_t n) __attribute__((weak));

#define NUM_IN TVMGEN_DEFAULT_NUM_INPUTS
#define NUM_OUT TVMGEN_DEFAULT_NUM_OUTPUTS

/* The entry reads arrays of data pointers; the header's structs have the same layout. */
union inputs {
  struct tvmgen_default_inputs s;
  void *p[NUM_IN > 0 ? NUM_IN : 1];
};
union outputs {
  struct tvmgen_default_outputs s;
  void *p[NUM_OUT > 0 ? NUM_OUT : 1];
};
_Static_assert(NUM_IN == 0 || sizeof(struct tvmgen_default_inputs) == NUM_IN * sizeof(void *),
               "struct tvmgen_default_inputs is an array of data pointers");
_Static_assert(NUM_OUT == 0 || sizeof(struct tvmgen_default_outputs) == NUM_OUT * sizeof(void *),
               "struct tvmgen_default_outputs is an array of data pointers");

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static size_t num_elements(const struct tvmgen_default_tensor_info *t) {
  size_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= (size_t)t->shape[d];
  return n;
}

static double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0, value;
  if (exponent == 0) {
    value = mantissa / 1024.0 / 16384.0; /* subnormal: m * 2^-24 */
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = (1.0 + mantissa / 1024.0);
    for (int e = exponent - 15; e > 0; --e) value *= 2.0;
    for (int e = exponent - 15; e < 0; ++e) value /= 2.0;
  }
  return sign * value;
}

/* Element i of a tensor as a double, for any dtype the header can name. */
static double element(const struct tvmgen_default_tensor_info *t, const void *data, size_t i) {
  const char *b = (const char *)data;
  switch (t->dtype_code * 100 + t->dtype_bits) {
    case 232: { float v; memcpy(&v, b + 4 * i, 4); return v; }
    case 264: { double v; memcpy(&v, b + 8 * i, 8); return v; }
    case 216: { uint16_t v; memcpy(&v, b + 2 * i, 2); return half_to_double(v); }
    case 8: return ((const int8_t *)data)[i];
    case 16: { int16_t v; memcpy(&v, b + 2 * i, 2); return v; }
    case 32: { int32_t v; memcpy(&v, b + 4 * i, 4); return v; }
    case 64: { int64_t v; memcpy(&v, b + 8 * i, 8); return (double)v; }
    case 108: return ((const uint8_t *)data)[i];
    case 116: { uint16_t v; memcpy(&v, b + 2 * i, 2); return v; }
    case 132: { uint32_t v; memcpy(&v, b + 4 * i, 4); return v; }
    case 164: { uint64_t v; memcpy(&v, b + 8 * i, 8); return (double)v; }
    case 601: return ((const uint8_t *)data)[i] != 0;
    default: return 0.0;
  }
}

/* A deterministic input: floats in [-1, 1), integers in 0..6, bools alternating. */
static void fill(const struct tvmgen_default_tensor_info *t, void *data) {
  size_t n = num_elements(t);
  char *b = (char *)data;
  for (size_t i = 0; i < n; ++i) {
    long k = (long)((i * 7919u) % 2000u);
    switch (t->dtype_code * 100 + t->dtype_bits) {
      case 232: { float v = (float)(k - 1000) / 1000.0f; memcpy(b + 4 * i, &v, 4); break; }
      case 264: { double v = (double)(k - 1000) / 1000.0; memcpy(b + 8 * i, &v, 8); break; }
      case 601: b[i] = (char)(i & 1); break;
      default: { /* integers (and float16: zero) */
        size_t size = t->dtype_bits / 8;
        memset(b + size * i, 0, size);
        if (t->dtype_code != 2) b[size * i] = (char)(i % 7);
      }
    }
  }
}

static int read_file(const char *path, const struct tvmgen_default_tensor_info *t, void *data) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "run_model: cannot open '%s': %s\n", path, strerror(errno));
    return -1;
  }
  size_t got = fread(data, 1, t->nbytes, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != t->nbytes || extra) {
    fprintf(stderr, "run_model: '%s' has %s bytes than input '%s' (%zu bytes: ", path,
            extra ? "more" : "fewer", t->name, t->nbytes);
    for (int d = 0; d < t->ndim; ++d) fprintf(stderr, "%s%lld", d ? "x" : "", (long long)t->shape[d]);
    fprintf(stderr, " %s)\n", t->dtype);
    return -1;
  }
  return 0;
}

static int write_file(const char *prefix, int k, const struct tvmgen_default_tensor_info *t,
                      const void *data) {
  char path[4096];
  snprintf(path, sizeof path, "%s%d.bin", prefix, k);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, t->nbytes, f) != t->nbytes || fclose(f) != 0) {
    fprintf(stderr, "run_model: cannot write '%s': %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

static void print_tensor_line(const char *kind, int k, const struct tvmgen_default_tensor_info *t) {
  printf("%s %d '%s' ", kind, k, t->name);
  for (int d = 0; d < t->ndim; ++d) printf("%s%lld", d ? "x" : "", (long long)t->shape[d]);
  printf("%s %s (%zu bytes)", t->ndim ? "" : "scalar", t->dtype, t->nbytes);
}

static void describe_error(int32_t code) {
  int kind = code >> 16, index = code & 0xffff;
  if (kind == 2)
    fprintf(stderr, "run_model: tvmgen_default_run returned %d = (2 << 16) | %d: NULL pointer (%s %d)\n",
            (int)code, index, index < NUM_IN ? "input" : "output",
            index < NUM_IN ? index : index - NUM_IN);
  else
    fprintf(stderr, "run_model: tvmgen_default_run returned %d = (%d << 16) | %d (docs/abi.md)\n",
            (int)code, kind, index);
}

static int usage(void) {
  fprintf(stderr,
          "usage: run_model [-i input.bin]... [-o PREFIX] [-n RUNS] [-t THREADS] [-p COUNT] [-z K]\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *input_files[NUM_IN > 0 ? NUM_IN : 1] = {0};
  int num_files = 0, runs = 10, threads = 0, print_count = 10, null_pointer = -1;
  const char *out_prefix = NULL;
  for (int a = 1; a < argc; ++a) {
    const char *opt = argv[a];
    if (a + 1 >= argc || opt[0] != '-' || opt[1] == 0 || opt[2] != 0) return usage();
    const char *value = argv[++a];
    char *end;
    long number = strtol(value, &end, 10);
    int numeric = *value && !*end;
    switch (opt[1]) {
      case 'i':
        if (num_files >= NUM_IN) {
          fprintf(stderr, "run_model: more -i files than the model's %d input(s)\n", NUM_IN);
          return 2;
        }
        input_files[num_files++] = value;
        break;
      case 'o': out_prefix = value; break;
      case 'n': if (!numeric || number < 1) return usage(); runs = (int)number; break;
      case 't': if (!numeric || number < 1) return usage(); threads = (int)number; break;
      case 'p': if (!numeric || number < 0) return usage(); print_count = (int)number; break;
      case 'z': if (!numeric || number < 0) return usage(); null_pointer = (int)number; break;
      default: return usage();
    }
  }

  /* Everything is allocated here, once; the timed loop allocates nothing. */
  union inputs in;
  union outputs out;
  double *times = malloc(sizeof(double) * (size_t)runs);
  if (!times) return 1;
  for (int k = 0; k < NUM_IN; ++k) {
    const struct tvmgen_default_tensor_info *t = tvmgen_default_input_info(k);
    size_t size = (t->nbytes + 63) / 64 * 64;
    in.p[k] = aligned_alloc(64, size ? size : 64);
    if (!in.p[k]) return 1;
    if (k < num_files) {
      if (read_file(input_files[k], t, in.p[k]) != 0) return 2;
    } else {
      fill(t, in.p[k]);
    }
    print_tensor_line("input", k, t);
    printf(": %s\n", k < num_files ? input_files[k] : "deterministic fill");
  }
  for (int k = 0; k < NUM_OUT; ++k) {
    const struct tvmgen_default_tensor_info *t = tvmgen_default_output_info(k);
    size_t size = (t->nbytes + 63) / 64 * 64;
    out.p[k] = aligned_alloc(64, size ? size : 64);
    if (!out.p[k]) return 1;
    memset(out.p[k], 0, size ? size : 64);
  }
  if (threads > 0) {
    if (xtvm_set_num_threads)
      xtvm_set_num_threads(threads);
    else
      printf("(-t %d: the library has no parallel kernels)\n", threads);
  }
  printf("workspace: %lld bytes, static in the library (.bss)\n",
         (long long)tvmgen_default_workspace_size);

  if (null_pointer >= 0) {
    if (null_pointer >= NUM_IN + NUM_OUT) {
      fprintf(stderr, "run_model: -z %d: the model has %d pointers\n", null_pointer, NUM_IN + NUM_OUT);
      return 2;
    }
    if (null_pointer < NUM_IN)
      in.p[null_pointer] = NULL;
    else
      out.p[null_pointer - NUM_IN] = NULL;
    int32_t code = tvmgen_default_run(&in.s, &out.s);
    printf("return code: %d\n", (int)code);
    if (code != 0) describe_error(code);
    return code == 0 ? 0 : 3;
  }

  int32_t code = tvmgen_default_run(&in.s, &out.s); /* warm-up */
  if (code != 0) {
    describe_error(code);
    return 3;
  }
  for (int r = 0; r < runs; ++r) {
    double start = now_seconds();
    code = tvmgen_default_run(&in.s, &out.s);
    times[r] = now_seconds() - start;
    if (code != 0) {
      describe_error(code);
      return 3;
    }
  }
  qsort(times, (size_t)runs, sizeof(double), compare_doubles);
  double median = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);

  for (int k = 0; k < NUM_OUT; ++k) {
    const struct tvmgen_default_tensor_info *t = tvmgen_default_output_info(k);
    size_t n = num_elements(t);
    double sum = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
      double v = element(t, out.p[k], i);
      sum += v;
      abs_sum += v < 0 ? -v : v;
    }
    print_tensor_line("output", k, t);
    printf(": sum %.9g abs_sum %.9g\n  [", sum, abs_sum);
    for (size_t i = 0; i < n && i < (size_t)print_count; ++i)
      printf("%s%.9g", i ? ", " : "", element(t, out.p[k], i));
    printf("%s]\n", n > (size_t)print_count ? ", ..." : "");
    if (out_prefix && write_file(out_prefix, k, t, out.p[k]) != 0) return 1;
  }
  printf("latency: median %.6f ms, min %.6f ms over %d runs\n", median * 1e3, times[0] * 1e3, runs);
  return 0;
}
