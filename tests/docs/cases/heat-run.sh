# examples/fortran/README.md: both run lines, on 4 ranks; each profile
# has the five regions on every rank.
heat_build
cd build-heat
snippet heat-run > run.sh
sh -e run.sh
for f in profiling_data.h5 heat_profile.h5; do
  check_profile "$f" --ranks 4 --region step --region "halo exchange" --region compute \
    --region "residual reduction" --region output --nested compute:step
done
