"""arena_gen/envs/repo"""
