#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <aubio/aubio.h>
#include "aubio_loader.h"

/* The real functions, resolved once from libaubio.so.5. */
static struct {
  aubio_fft_t *(*new_aubio_fft)(uint_t);
  void (*del_aubio_fft)(aubio_fft_t *);
  void (*aubio_fft_do_complex)(aubio_fft_t *, const fvec_t *, fvec_t *);
  void (*aubio_fft_get_norm)(const fvec_t *, cvec_t *);
  void (*aubio_fft_get_spectrum)(const fvec_t *, cvec_t *);
  aubio_filterbank_t *(*new_aubio_filterbank)(uint_t, uint_t);
  void (*del_aubio_filterbank)(aubio_filterbank_t *);
  fmat_t *(*aubio_filterbank_get_coeffs)(const aubio_filterbank_t *);
  uint_t (*aubio_filterbank_set_mel_coeffs)(aubio_filterbank_t *, smpl_t, smpl_t, smpl_t);
  uint_t (*aubio_filterbank_set_norm)(aubio_filterbank_t *, smpl_t);
  fvec_t *(*new_fvec)(uint_t);
  void (*del_fvec)(fvec_t *);
  cvec_t *(*new_cvec)(uint_t);
  void (*del_cvec)(cvec_t *);
  aubio_pitch_t *(*new_aubio_pitch)(const char_t *, uint_t, uint_t, uint_t);
  void (*del_aubio_pitch)(aubio_pitch_t *);
  void (*aubio_pitch_do)(aubio_pitch_t *, const fvec_t *, fvec_t *);
  uint_t (*aubio_pitch_set_unit)(aubio_pitch_t *, const char_t *);
  uint_t (*aubio_pitch_set_tolerance)(aubio_pitch_t *, smpl_t);
  uint_t (*aubio_pitch_set_silence)(aubio_pitch_t *, smpl_t);
  smpl_t (*aubio_pitch_get_confidence)(aubio_pitch_t *);
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = NULL;

static void load(void) {
  void *library = dlopen("libaubio.so.5", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    load_error = dlerror();
    return;
  }
#define RESOLVE(name)                                  \
  *(void **)(&real.name) = dlsym(library, #name);      \
  if (real.name == NULL) {                             \
    load_error = "libaubio.so.5 lacks " #name;         \
    return;                                            \
  }
  RESOLVE(new_aubio_fft)
  RESOLVE(del_aubio_fft)
  RESOLVE(aubio_fft_do_complex)
  RESOLVE(aubio_fft_get_norm)
  RESOLVE(aubio_fft_get_spectrum)
  RESOLVE(new_aubio_filterbank)
  RESOLVE(del_aubio_filterbank)
  RESOLVE(aubio_filterbank_get_coeffs)
  RESOLVE(aubio_filterbank_set_mel_coeffs)
  RESOLVE(aubio_filterbank_set_norm)
  RESOLVE(new_fvec)
  RESOLVE(del_fvec)
  RESOLVE(new_cvec)
  RESOLVE(del_cvec)
  RESOLVE(new_aubio_pitch)
  RESOLVE(del_aubio_pitch)
  RESOLVE(aubio_pitch_do)
  RESOLVE(aubio_pitch_set_unit)
  RESOLVE(aubio_pitch_set_tolerance)
  RESOLVE(aubio_pitch_set_silence)
  RESOLVE(aubio_pitch_get_confidence)
#undef RESOLVE
}

/* Whether every function was resolved (loads on first call). */
static int ready(void) {
  pthread_once(&once, load);
  return load_error == NULL;
}

const char *practice_aubio_load_error(void) {
  return ready() ? NULL : load_error;
}

/* Constructors return NULL when the library is missing; the rest are only ever called
   on what a constructor returned. */
aubio_fft_t *new_aubio_fft(uint_t size) { return ready() ? real.new_aubio_fft(size) : NULL; }
void del_aubio_fft(aubio_fft_t *s) { if (s != NULL && ready()) real.del_aubio_fft(s); }
void aubio_fft_do_complex(aubio_fft_t *s, const fvec_t *input, fvec_t *compspec) {
  real.aubio_fft_do_complex(s, input, compspec);
}
void aubio_fft_get_norm(const fvec_t *compspec, cvec_t *spectrum) {
  real.aubio_fft_get_norm(compspec, spectrum);
}
void aubio_fft_get_spectrum(const fvec_t *compspec, cvec_t *spectrum) {
  real.aubio_fft_get_spectrum(compspec, spectrum);
}
aubio_filterbank_t *new_aubio_filterbank(uint_t n_filters, uint_t win_s) {
  return ready() ? real.new_aubio_filterbank(n_filters, win_s) : NULL;
}
void del_aubio_filterbank(aubio_filterbank_t *f) {
  if (f != NULL && ready()) real.del_aubio_filterbank(f);
}
fmat_t *aubio_filterbank_get_coeffs(const aubio_filterbank_t *f) {
  return real.aubio_filterbank_get_coeffs(f);
}
uint_t aubio_filterbank_set_mel_coeffs(aubio_filterbank_t *fb, smpl_t samplerate, smpl_t fmin, smpl_t fmax) {
  return real.aubio_filterbank_set_mel_coeffs(fb, samplerate, fmin, fmax);
}
uint_t aubio_filterbank_set_norm(aubio_filterbank_t *f, smpl_t norm) {
  return real.aubio_filterbank_set_norm(f, norm);
}
fvec_t *new_fvec(uint_t length) { return ready() ? real.new_fvec(length) : NULL; }
void del_fvec(fvec_t *s) { if (s != NULL && ready()) real.del_fvec(s); }
cvec_t *new_cvec(uint_t length) { return ready() ? real.new_cvec(length) : NULL; }
void del_cvec(cvec_t *s) { if (s != NULL && ready()) real.del_cvec(s); }
aubio_pitch_t *new_aubio_pitch(const char_t *method, uint_t buf_size, uint_t hop_size,
                               uint_t samplerate) {
  return ready() ? real.new_aubio_pitch(method, buf_size, hop_size, samplerate) : NULL;
}
void del_aubio_pitch(aubio_pitch_t *o) { if (o != NULL && ready()) real.del_aubio_pitch(o); }
void aubio_pitch_do(aubio_pitch_t *o, const fvec_t *in, fvec_t *out) {
  real.aubio_pitch_do(o, in, out);
}
uint_t aubio_pitch_set_unit(aubio_pitch_t *o, const char_t *mode) {
  return real.aubio_pitch_set_unit(o, mode);
}
uint_t aubio_pitch_set_tolerance(aubio_pitch_t *o, smpl_t tol) {
  return real.aubio_pitch_set_tolerance(o, tol);
}
uint_t aubio_pitch_set_silence(aubio_pitch_t *o, smpl_t silence) {
  return real.aubio_pitch_set_silence(o, silence);
}
smpl_t aubio_pitch_get_confidence(aubio_pitch_t *o) { return real.aubio_pitch_get_confidence(o); }
