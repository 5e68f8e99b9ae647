"""arena_gen/envs/trading"""
