/* h5_attr.h - scalar attributes of the written files (layout.c,
 * aggregate_h5.c, likwid_glue.c): one helper instead of a copy in each. */
#ifndef SP_H5_ATTR_H
#define SP_H5_ATTR_H

#include <hdf5.h>

#include "sp_internal.h"

/* Creates the scalar attribute name of type on obj (HDF5 group or dataset)
 * and writes *value (memory type = type). 0 or SP_EHDF5. */
SP_HIDDEN int sp__h5_attr(hid_t obj, const char *name, hid_t type, const void *value);
/* The same for a variable-length UTF-8 string. */
SP_HIDDEN int sp__h5_attr_str(hid_t obj, const char *name, const char *value);

#endif
