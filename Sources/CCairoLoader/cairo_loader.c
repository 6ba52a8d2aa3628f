#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>
#include <pthread.h>
#include <stddef.h>
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
#include "cairo_loader.h"

/* The real functions, resolved once from libcairo.so.2. */
static struct {
  cairo_surface_t *(*cairo_image_surface_create)(cairo_format_t format, int width, int height);
  cairo_surface_t *(*cairo_image_surface_create_from_png)(const char *filename);
  cairo_surface_t *(*cairo_pdf_surface_create)(const char *filename, double width_in_points, double height_in_points);
  cairo_surface_t *(*cairo_svg_surface_create)(const char *filename, double width_in_points, double height_in_points);
  cairo_surface_t *(*cairo_pdf_surface_create_for_stream)(cairo_write_func_t write_func, void *closure, double width_in_points, double height_in_points);
  cairo_surface_t *(*cairo_svg_surface_create_for_stream)(cairo_write_func_t write_func, void *closure, double width_in_points, double height_in_points);
  cairo_status_t(*cairo_surface_write_to_png_stream)(cairo_surface_t *surface, cairo_write_func_t write_func, void *closure);
  unsigned char *(*cairo_image_surface_get_data)(cairo_surface_t *surface);
  int(*cairo_image_surface_get_width)(cairo_surface_t *surface);
  int(*cairo_image_surface_get_height)(cairo_surface_t *surface);
  int(*cairo_image_surface_get_stride)(cairo_surface_t *surface);
  cairo_format_t(*cairo_image_surface_get_format)(cairo_surface_t *surface);
  cairo_status_t(*cairo_surface_write_to_png)(cairo_surface_t *surface, const char *filename);
  void(*cairo_surface_finish)(cairo_surface_t *surface);
  void(*cairo_surface_flush)(cairo_surface_t *surface);
  void(*cairo_surface_destroy)(cairo_surface_t *surface);
  cairo_status_t(*cairo_surface_status)(cairo_surface_t *surface);
  cairo_t *(*cairo_create)(cairo_surface_t *target);
  void(*cairo_destroy)(cairo_t *cr);
  cairo_status_t(*cairo_status)(cairo_t *cr);
  const char *(*cairo_status_to_string)(cairo_status_t status);
  void(*cairo_save)(cairo_t *cr);
  void(*cairo_restore)(cairo_t *cr);
  void(*cairo_set_source_rgb)(cairo_t *cr, double red, double green, double blue);
  void(*cairo_set_source_rgba)(cairo_t *cr, double red, double green, double blue, double alpha);
  void(*cairo_set_line_width)(cairo_t *cr, double width);
  void(*cairo_set_antialias)(cairo_t *cr, cairo_antialias_t antialias);
  void(*cairo_paint)(cairo_t *cr);
  void(*cairo_new_path)(cairo_t *cr);
  void(*cairo_move_to)(cairo_t *cr, double x, double y);
  void(*cairo_line_to)(cairo_t *cr, double x, double y);
  void(*cairo_rectangle)(cairo_t *cr, double x, double y, double width, double height);
  void(*cairo_arc)(cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2);
  void(*cairo_fill)(cairo_t *cr);
  void(*cairo_stroke)(cairo_t *cr);
  void(*cairo_select_font_face)(cairo_t *cr, const char *family, cairo_font_slant_t slant, cairo_font_weight_t weight);
  void(*cairo_set_font_size)(cairo_t *cr, double size);
  void(*cairo_show_text)(cairo_t *cr, const char *utf8);
  void(*cairo_text_extents)(cairo_t *cr, const char *utf8, cairo_text_extents_t *extents);
  void(*cairo_show_page)(cairo_t *cr);
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = NULL;

static void load(void) {
  void *library = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    load_error = dlerror();
    return;
  }
#define RESOLVE(name)                                  \
  *(void **)(&real.name) = dlsym(library, #name);      \
  if (real.name == NULL) {                             \
    load_error = "libcairo.so.2 lacks " #name;         \
    return;                                            \
  }
  RESOLVE(cairo_image_surface_create)
  RESOLVE(cairo_image_surface_create_from_png)
  RESOLVE(cairo_pdf_surface_create)
  RESOLVE(cairo_svg_surface_create)
  RESOLVE(cairo_pdf_surface_create_for_stream)
  RESOLVE(cairo_svg_surface_create_for_stream)
  RESOLVE(cairo_surface_write_to_png_stream)
  RESOLVE(cairo_image_surface_get_data)
  RESOLVE(cairo_image_surface_get_width)
  RESOLVE(cairo_image_surface_get_height)
  RESOLVE(cairo_image_surface_get_stride)
  RESOLVE(cairo_image_surface_get_format)
  RESOLVE(cairo_surface_write_to_png)
  RESOLVE(cairo_surface_finish)
  RESOLVE(cairo_surface_flush)
  RESOLVE(cairo_surface_destroy)
  RESOLVE(cairo_surface_status)
  RESOLVE(cairo_create)
  RESOLVE(cairo_destroy)
  RESOLVE(cairo_status)
  RESOLVE(cairo_status_to_string)
  RESOLVE(cairo_save)
  RESOLVE(cairo_restore)
  RESOLVE(cairo_set_source_rgb)
  RESOLVE(cairo_set_source_rgba)
  RESOLVE(cairo_set_line_width)
  RESOLVE(cairo_set_antialias)
  RESOLVE(cairo_paint)
  RESOLVE(cairo_new_path)
  RESOLVE(cairo_move_to)
  RESOLVE(cairo_line_to)
  RESOLVE(cairo_rectangle)
  RESOLVE(cairo_arc)
  RESOLVE(cairo_fill)
  RESOLVE(cairo_stroke)
  RESOLVE(cairo_select_font_face)
  RESOLVE(cairo_set_font_size)
  RESOLVE(cairo_show_text)
  RESOLVE(cairo_text_extents)
  RESOLVE(cairo_show_page)
#undef RESOLVE
}

/* Whether every function was resolved (loads on first call). */
static int ready(void) {
  pthread_once(&once, load);
  return load_error == NULL;
}

const char *practice_cairo_load_error(void) {
  return ready() ? NULL : load_error;
}

/* Constructors return NULL when the library is missing; the rest are only ever called
   on what a constructor returned. */
cairo_surface_t *cairo_image_surface_create(cairo_format_t format, int width, int height) { return ready() ? real.cairo_image_surface_create(format, width, height) : NULL; }
cairo_surface_t *cairo_image_surface_create_from_png(const char *filename) { return ready() ? real.cairo_image_surface_create_from_png(filename) : NULL; }
cairo_surface_t *cairo_pdf_surface_create(const char *filename, double width_in_points, double height_in_points) { return ready() ? real.cairo_pdf_surface_create(filename, width_in_points, height_in_points) : NULL; }
cairo_surface_t *cairo_svg_surface_create(const char *filename, double width_in_points, double height_in_points) { return ready() ? real.cairo_svg_surface_create(filename, width_in_points, height_in_points) : NULL; }
cairo_surface_t *cairo_pdf_surface_create_for_stream(cairo_write_func_t write_func, void *closure, double width_in_points, double height_in_points) { return ready() ? real.cairo_pdf_surface_create_for_stream(write_func, closure, width_in_points, height_in_points) : NULL; }
cairo_surface_t *cairo_svg_surface_create_for_stream(cairo_write_func_t write_func, void *closure, double width_in_points, double height_in_points) { return ready() ? real.cairo_svg_surface_create_for_stream(write_func, closure, width_in_points, height_in_points) : NULL; }
cairo_status_t cairo_surface_write_to_png_stream(cairo_surface_t *surface, cairo_write_func_t write_func, void *closure) { return real.cairo_surface_write_to_png_stream(surface, write_func, closure); }
unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface) { return real.cairo_image_surface_get_data(surface); }
int cairo_image_surface_get_width(cairo_surface_t *surface) { return real.cairo_image_surface_get_width(surface); }
int cairo_image_surface_get_height(cairo_surface_t *surface) { return real.cairo_image_surface_get_height(surface); }
int cairo_image_surface_get_stride(cairo_surface_t *surface) { return real.cairo_image_surface_get_stride(surface); }
cairo_format_t cairo_image_surface_get_format(cairo_surface_t *surface) { return real.cairo_image_surface_get_format(surface); }
cairo_status_t cairo_surface_write_to_png(cairo_surface_t *surface, const char *filename) { return real.cairo_surface_write_to_png(surface, filename); }
void cairo_surface_finish(cairo_surface_t *surface) { real.cairo_surface_finish(surface); }
void cairo_surface_flush(cairo_surface_t *surface) { real.cairo_surface_flush(surface); }
void cairo_surface_destroy(cairo_surface_t *surface) { if (surface != NULL && ready()) real.cairo_surface_destroy(surface); }
cairo_status_t cairo_surface_status(cairo_surface_t *surface) { return real.cairo_surface_status(surface); }
cairo_t *cairo_create(cairo_surface_t *target) { return ready() ? real.cairo_create(target) : NULL; }
void cairo_destroy(cairo_t *cr) { if (cr != NULL && ready()) real.cairo_destroy(cr); }
cairo_status_t cairo_status(cairo_t *cr) { return real.cairo_status(cr); }
const char *cairo_status_to_string(cairo_status_t status) { return ready() ? real.cairo_status_to_string(status) : "cairo is not loaded"; }
void cairo_save(cairo_t *cr) { real.cairo_save(cr); }
void cairo_restore(cairo_t *cr) { real.cairo_restore(cr); }
void cairo_set_source_rgb(cairo_t *cr, double red, double green, double blue) { real.cairo_set_source_rgb(cr, red, green, blue); }
void cairo_set_source_rgba(cairo_t *cr, double red, double green, double blue, double alpha) { real.cairo_set_source_rgba(cr, red, green, blue, alpha); }
void cairo_set_line_width(cairo_t *cr, double width) { real.cairo_set_line_width(cr, width); }
void cairo_set_antialias(cairo_t *cr, cairo_antialias_t antialias) { real.cairo_set_antialias(cr, antialias); }
void cairo_paint(cairo_t *cr) { real.cairo_paint(cr); }
void cairo_new_path(cairo_t *cr) { real.cairo_new_path(cr); }
void cairo_move_to(cairo_t *cr, double x, double y) { real.cairo_move_to(cr, x, y); }
void cairo_line_to(cairo_t *cr, double x, double y) { real.cairo_line_to(cr, x, y); }
void cairo_rectangle(cairo_t *cr, double x, double y, double width, double height) { real.cairo_rectangle(cr, x, y, width, height); }
void cairo_arc(cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2) { real.cairo_arc(cr, xc, yc, radius, angle1, angle2); }
void cairo_fill(cairo_t *cr) { real.cairo_fill(cr); }
void cairo_stroke(cairo_t *cr) { real.cairo_stroke(cr); }
void cairo_select_font_face(cairo_t *cr, const char *family, cairo_font_slant_t slant, cairo_font_weight_t weight) { real.cairo_select_font_face(cr, family, slant, weight); }
void cairo_set_font_size(cairo_t *cr, double size) { real.cairo_set_font_size(cr, size); }
void cairo_show_text(cairo_t *cr, const char *utf8) { real.cairo_show_text(cr, utf8); }
void cairo_text_extents(cairo_t *cr, const char *utf8, cairo_text_extents_t *extents) { real.cairo_text_extents(cr, utf8, extents); }
void cairo_show_page(cairo_t *cr) { real.cairo_show_page(cr); }

cairo_status_t practice_cairo_fd_write(void *closure, const unsigned char *data, unsigned int length) {
  struct practice_cairo_sink *sink = closure;
  if (sink->error != 0) return CAIRO_STATUS_WRITE_ERROR;
  while (length > 0) {
    ssize_t n = write(sink->fd, data, length);
    if (n < 0) {
      if (errno == EINTR) continue;
      sink->error = errno;
      return CAIRO_STATUS_WRITE_ERROR;
    }
    data += n;
    length -= (unsigned int)n;
  }
  return CAIRO_STATUS_SUCCESS;
}
