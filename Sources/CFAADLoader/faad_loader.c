#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <neaacdec.h>
#include "faad_loader.h"

/* The real functions, resolved once from libfaad.so.2. */
static struct {
  NeAACDecHandle (*open)(void);
  NeAACDecConfigurationPtr (*get_configuration)(NeAACDecHandle);
  unsigned char (*set_configuration)(NeAACDecHandle, NeAACDecConfigurationPtr);
  char (*init2)(NeAACDecHandle, unsigned char *, unsigned long, unsigned long *, unsigned char *);
  void *(*decode2)(NeAACDecHandle, NeAACDecFrameInfo *, unsigned char *, unsigned long, void **,
                   unsigned long);
  void (*close)(NeAACDecHandle);
  char *(*error_message)(unsigned char);
  char (*audio_specific_config)(unsigned char *, unsigned long, mp4AudioSpecificConfig *);
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = NULL;
static char load_message[256];

#define RESOLVE(field, name)                                                      \
  *(void **)(&real.field) = dlsym(library, #name);                                \
  if (real.field == NULL) {                                                       \
    snprintf(load_message, sizeof load_message, "libfaad.so.2 lacks " #name);     \
    load_error = load_message;                                                    \
    return;                                                                       \
  }

static void load(void) {
  void *library = dlopen("libfaad.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    snprintf(load_message, sizeof load_message, "%s", dlerror());
    load_error = load_message;
    return;
  }
  RESOLVE(open, NeAACDecOpen)
  RESOLVE(get_configuration, NeAACDecGetCurrentConfiguration)
  RESOLVE(set_configuration, NeAACDecSetConfiguration)
  RESOLVE(init2, NeAACDecInit2)
  RESOLVE(decode2, NeAACDecDecode2)
  RESOLVE(close, NeAACDecClose)
  RESOLVE(error_message, NeAACDecGetErrorMessage)
  RESOLVE(audio_specific_config, NeAACDecAudioSpecificConfig)
}

static int ready(void) {
  pthread_once(&once, load);
  return load_error == NULL;
}

const char *practice_faad_load_error(void) { return ready() ? NULL : load_error; }

NeAACDecHandle NeAACDecOpen(void) { return ready() ? real.open() : NULL; }
NeAACDecConfigurationPtr NeAACDecGetCurrentConfiguration(NeAACDecHandle decoder) {
  return ready() ? real.get_configuration(decoder) : NULL;
}
unsigned char NeAACDecSetConfiguration(NeAACDecHandle decoder, NeAACDecConfigurationPtr config) {
  return ready() ? real.set_configuration(decoder, config) : 0;
}
char NeAACDecInit2(NeAACDecHandle decoder, unsigned char *config, unsigned long size,
                   unsigned long *samplerate, unsigned char *channels) {
  return ready() ? real.init2(decoder, config, size, samplerate, channels) : -1;
}
void *NeAACDecDecode2(NeAACDecHandle decoder, NeAACDecFrameInfo *info, unsigned char *buffer,
                      unsigned long size, void **samples, unsigned long samples_size) {
  return ready() ? real.decode2(decoder, info, buffer, size, samples, samples_size) : NULL;
}
void NeAACDecClose(NeAACDecHandle decoder) { if (ready()) real.close(decoder); }
char *NeAACDecGetErrorMessage(unsigned char code) {
  return ready() ? real.error_message(code) : (char *)"libfaad2 is not loaded";
}
char NeAACDecAudioSpecificConfig(unsigned char *config, unsigned long size,
                                 mp4AudioSpecificConfig *asc) {
  return ready() ? real.audio_specific_config(config, size, asc) : -1;
}
