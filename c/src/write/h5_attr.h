/* h5_attr.h - scalar attributes and one-dimensional datasets of the
 * written files (layout.c, aggregate_h5.c, aggregate_h5_reduced.c,
 * likwid_glue.c): one helper instead of a copy in each. */
#ifndef SP_H5_ATTR_H
#define SP_H5_ATTR_H

#include <hdf5.h>

#include "sp_internal.h"

/* Creates the scalar attribute name of type on obj (HDF5 group or dataset)
 * and writes *value (memory type = type). 0 or SP_EHDF5. */
SP_HIDDEN int sp__h5_attr(hid_t obj, const char *name, hid_t type, const void *value);
/* The same for a variable-length UTF-8 string. */
SP_HIDDEN int sp__h5_attr_str(hid_t obj, const char *name, const char *value);
/* A one-dimensional dataset name of n elements at g, data in memory type
 * mem, stored as file (0 or SP_EHDF5). */
SP_HIDDEN int sp__h5_dataset_1d(hid_t g, const char *name, hid_t mem, hid_t file, int64_t n,
                                const void *data);

#endif
